"""Benchmarks: `python -m benchmarks` (everything) and `python -m benchmarks.llm` (LLM serving)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "out"
Row = tuple[str, str, str]


def report(name: str, title: str, rows: list[Row], meta: dict[str, Any], header: str) -> None:
    """Write out/NAME.json and print the rows as a Markdown table under `title`."""
    OUT.mkdir(exist_ok=True)
    record = meta | {
        "when": time.strftime("%Y-%m-%d %H:%M"),
        "rows": [dict(zip(("name", "value", "note"), r, strict=True)) for r in rows],
    }
    (OUT / f"{name}.json").write_text(json.dumps(record, indent=1))
    print(f"\n{title}\n")
    print(f"| {'benchmark':<44} | {header:>16} | note |")
    print(f"| {'-' * 44} | {'-' * 16} | --- |")
    for label, value, note in rows:
        print(f"| {label:<44} | {value:>16} | {note} |")
