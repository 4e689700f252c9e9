"""Batch input rows, read strictly: every problem is reported against its line, never
silently repaired, and never stops the rows after it from being read."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import InputError
from .output import csv_text

Read = tuple[int, dict[str, Any] | None, str | None]  # (line, row or None, problem or None)
# (a row with a problem is given where it names its id: it is reported, never graded)
BOM = b"\xef\xbb\xbf"
csv.field_size_limit(2**31 - 1)  # long fields are reported by the length check, not a crash


def check_input(path: Path) -> None:
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if not path.is_file():
        raise InputError(f"{path}: not a file")
    if path.suffix.lower() not in (".csv", ".jsonl"):
        raise InputError(f"{path}: input must be .csv or .jsonl")
    if path.suffix.lower() == ".csv":  # not UTF-8, or no question/answer columns: no work
        _header(path, _csv_text(path))


def _header(path: Path, text: str) -> None:
    try:
        names = next(csv.reader(io.StringIO(text, newline="")), [])
    except csv.Error as e:
        raise InputError(f"{path}: the CSV header cannot be read ({e})") from e
    if not {"question", "answer"} <= set(names):
        raise InputError(
            f"{path}: the CSV header needs 'question' and 'answer' columns (it has: "
            f"{', '.join(repr(n) for n in names[:8]) or 'none'})"
        )


def _csv_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(
            f"{path}: not valid UTF-8 at line {line} (byte {e.start}); save the file as UTF-8"
        ) from e


def read_rows(path: Path) -> Iterator[Read]:
    """(line number, raw row or None, problem or None) for every data line of INPUT."""
    check_input(path)
    if path.suffix.lower() == ".jsonl":
        yield from _jsonl(path)
    else:
        yield from _csv(path)


def count_rows(path: Path) -> int | None:
    """How many data rows INPUT holds, for a progress bar's total (None if it cannot tell)."""
    try:
        if path.suffix.lower() == ".jsonl":
            with path.open("rb") as f:
                return sum(1 for line in f if line.strip())
        rows = csv.reader(io.StringIO(_csv_text(path), newline=""))
        return max(0, sum(1 for _ in rows) - 1)
    except (OSError, InputError, csv.Error):
        return None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= ch <= "\udfff" for ch in value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(v) for v in value)
    return False


def _jsonl(path: Path) -> Iterator[Read]:
    with path.open("rb") as f:  # split on \n only: U+2028 and friends stay inside their line
        for n, raw in enumerate(f, 1):
            if n == 1 and raw.startswith(BOM):
                raw = raw[len(BOM) :]
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                yield n, None, f"not valid UTF-8 (byte {e.start} of the line); save as UTF-8"
                continue
            if not line.strip():
                continue
            try:
                row = json.loads(line, parse_constant=_reject_constant)
            except json.JSONDecodeError as e:
                # (the decoder's own message may end in "at": "Invalid control character at")
                what = e.msg.removesuffix(" at")
                yield n, None, f"not valid JSON ({what} at column {e.colno})"
                continue
            except RecursionError:
                yield n, None, "not valid JSON (nested too deeply)"
                continue
            except ValueError as e:
                yield n, None, f"not valid JSON ({e})"
                continue
            if not isinstance(row, dict):
                yield n, None, "not a JSON object"
            elif _has_surrogate(row):
                yield n, None, "contains an unpaired surrogate (\\ud800-\\udfff): not text"
            else:
                yield n, row, None


def _csv(path: Path) -> Iterator[Read]:
    text = _csv_text(path)
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    try:
        start = 1
        for row in reader:
            if None in row:  # (its id still names it in the errors file)
                named = {k: v for k, v in row.items() if k is not None}
                yield reader.line_num, named, "more fields than the header has"
            elif None in row.values():
                named = {k: v for k, v in row.items() if v is not None}
                have = len(reader.fieldnames or ()) - list(row.values()).count(None)
                yield (
                    reader.line_num,
                    named,
                    f"fewer fields than the header has ({have} of {len(reader.fieldnames or ())})",
                )
            else:
                yield reader.line_num, dict(row), None
            start = reader.line_num + 1
    except csv.Error as e:
        last = text.count("\n") + (0 if text.endswith("\n") else 1)
        yield (
            start,
            None,
            f"CSV error: {e}; lines {start}-{last} could not be read (an unterminated quote?)",
        )


def done_keys(output: Path) -> set[str]:
    """Rows already graded in OUTPUT. A line cut off by a kill is not counted: that row is
    graded again. Rows that failed before are retried on --resume (the endpoint may be back)."""
    keys: set[str] = set()
    if not output.exists():
        return keys
    if output.suffix.lower() == ".csv":
        with output.open(encoding="utf-8-sig", newline="") as f:  # (its byte-order mark)
            return {csv_text(r["id"]) for r in csv.DictReader(f) if r.get("id")}
    for raw in output.read_bytes().split(b"\n"):
        try:
            keys.add(str(json.loads(raw.decode("utf-8"))["id"]))
        except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError):
            continue
    return keys
