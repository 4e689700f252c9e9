"""Versioned prompt files in prompts/, rendered by one strict function."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from .config import resource_dir


def prompts_dir() -> Path:
    return resource_dir("prompts")


@cache
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(prompts_dir())),
        undefined=jinja2.StrictUndefined,  # an undefined variable is an error, never ""
        keep_trailing_newline=True,
        autoescape=False,
    )


def render(name: str, **variables: Any) -> str:
    """Render prompts/NAME.md; raises jinja2.UndefinedError on a missing variable."""
    return str(_environment().get_template(f"{name}.md").render(**variables)).strip()


def available() -> list[str]:
    return sorted(p.stem for p in prompts_dir().glob("*.md"))
