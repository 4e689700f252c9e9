"""CLI commands for grading, evals and the app (kept apart so cli.py stays small)."""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:
    return None
