"""Batch output files: graded rows appended as JSONL or CSV, flushed row by row; the errors
and review files beside them."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any, TextIO

from .errors import InputError

# A spreadsheet runs a cell that starts with one of these as a formula ("=HYPERLINK(...)" in a
# candidate's answer): CSV cells that do are written after an apostrophe, which spreadsheets
# hide and read as "text follows" (OWASP's advice for CSV injection). JSONL keeps every value.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# Excel reads a CSV as UTF-8 only after this mark ("×", "—" came out garbled); Python's
# "utf-8-sig", pandas and spreadsheets read it as the start of the file.
CSV_ENCODING = "utf-8-sig"


def csv_cell(value: Any) -> Any:
    """A value as one CSV cell: a list of texts joined with " | ", a list of records (the
    claims) as JSON, a text a spreadsheet would run as a formula quoted with an apostrophe."""
    if isinstance(value, list):
        if any(isinstance(v, dict | list) for v in value):
            return json.dumps(value, ensure_ascii=False)
        value = " | ".join(map(str, value))
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_text(cell: str) -> str:
    """The text a cell was made from (`csv_cell`): its formula guard taken off."""
    return cell[1:] if cell.startswith("'") and cell[1:].startswith(FORMULA_START) else cell


class Writer:
    """Appends rows as they come, flushed, so a killed run loses at most the row in flight.
    `Writer.open` does the file work; the constructor only holds what it opened."""

    def __init__(self, f: TextIO, csv_format: bool, fieldnames: list[str] | None) -> None:
        self.f, self.csv, self.fieldnames = f, csv_format, fieldnames

    @classmethod
    def open(cls, path: Path, resume: bool) -> Writer:
        if path.suffix.lower() not in (".csv", ".jsonl"):
            raise InputError(f"{path}: output must be .csv or .jsonl")
        as_csv, fieldnames = path.suffix.lower() == ".csv", None
        going_on = resume and path.exists() and path.stat().st_size > 0
        if going_on and as_csv:
            with path.open(encoding=CSV_ENCODING, newline="") as f:
                fieldnames = next(csv.reader(f))
        if going_on and not as_csv:
            _drop_torn_line(path)
        # (the byte-order mark opens a new CSV file only: appended rows follow it)
        encoding = CSV_ENCODING if as_csv and not going_on else "utf-8"
        out: TextIO = path.open("a" if resume else "w", encoding=encoding, newline="")
        if going_on and not path.read_bytes().endswith(b"\n"):
            out.write("\n")  # a CSV row cut off by a kill stays apart from the next row
        return cls(out, as_csv, fieldnames)

    def write(self, row: dict[str, Any]) -> None:
        if self.csv:
            flat = {k: csv_cell(v) for k, v in row.items()}
            if self.fieldnames is None:
                self.fieldnames = list(flat)
                csv.writer(self.f).writerow(self.fieldnames)
            csv.DictWriter(self.f, self.fieldnames, extrasaction="ignore").writerow(flat)
        else:  # strict JSON out: no NaN or Infinity
            self.f.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
        self.f.flush()

    def close(self) -> None:
        self.f.close()


def _drop_torn_line(path: Path) -> None:
    """Cut a JSONL line that a kill left half-written (every whole line ends in a newline,
    and JSON escapes newlines inside strings), so the output stays valid JSONL. Resume reads
    the whole output anyway (`done_keys`)."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with path.open("rb+") as f:
            f.truncate(data.rfind(b"\n") + 1)


def errors_path(output: Path) -> Path:
    return output.with_name(output.name + ".errors.jsonl")


def review_path(output: Path) -> Path:
    """The grades for a person to check, in the output's own format."""
    return output.with_name(output.name + ".review" + output.suffix.lower())
