"""Batch grading of written answers: CSV/JSONL in, graded JSONL/CSV out, resumable."""

from __future__ import annotations

import csv
import json
import statistics
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel, ValidationError, field_validator

from .config import Settings
from .errors import InputError, InterviewerError
from .grader import CHUNK, Grader, grade_isolated, too_long
from .index import Index
from .records import Grade, ReferenceSet
from .references import ReferenceCache
from .rows import check_input, done_keys, read_rows

GRADE_FIELDS = (
    "score",
    "expected_score",
    "covered",
    "missed",
    "wrong_claims",
    "feedback",
    "reference_ids",
    "flags",
    "confidence",
    "grader",
    "model",
    "prompt_version",
    "decided_by",
    "rubric",
    "claim_checker",
    "claims",
)


class Row(BaseModel):
    """One input row, validated at the trust boundary."""

    question: str
    answer: str
    id: str | None = None
    reference_answer: str | None = None

    @field_validator("question")
    @classmethod
    def _question_not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("question is empty")
        return v


@dataclass
class Summary:
    graded: int = 0
    skipped: int = 0  # already in the output (resume)
    errors: int = 0
    scores: list[int] = field(default_factory=list)
    grader: str = ""
    # Rows graded 0 for what they are, not what they say (an injection, another language):
    # counted apart, so a low mean can be read.
    flagged: Counter[str] = field(default_factory=Counter)

    @property
    def mean(self) -> float | None:
        return round(statistics.fmean(self.scores), 3) if self.scores else None

    def record(self, output: Path, review: bool) -> dict[str, Any]:
        """What the CLI prints when a run ends: counts and where everything went."""
        return {
            "graded": self.graded,
            "resumed_past": self.skipped,
            "mean_score": self.mean,
            "flagged": dict(sorted(self.flagged.items())),
            "grader": self.grader,
            "errors": self.errors,
            "output": str(output),
            "errors_file": str(errors_path(output)),
            **({"review_file": str(review_path(output))} if review else {}),
        }


def row_key(raw: dict[str, Any], line: int) -> str:
    return str(raw.get("id") or f"line-{line}")


def output_row(raw: dict[str, Any], key: str, g: Grade) -> dict[str, Any]:
    out = {("input_" + k if k in GRADE_FIELDS else k): v for k, v in raw.items()}
    out["id"] = key
    out.update(
        score=g.score,
        expected_score=g.expected_score,
        covered=list(g.covered),
        missed=list(g.missed),
        wrong_claims=list(g.wrong_claims),
        feedback=g.feedback,
        reference_ids=list(g.reference_ids),
        flags=list(g.flags),
        confidence=g.confidence,
        grader=g.provenance.grader,
        model=g.provenance.model,
        prompt_version=g.provenance.prompt_version,
        decided_by=g.provenance.decided_by,
        rubric=g.provenance.rubric,
        claim_checker=g.provenance.claim_checker,
        claims=[{"point": c.point, "verdict": c.verdict, "evidence": c.evidence} for c in g.claims],
    )
    return out


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
        if resume and as_csv and path.exists() and path.stat().st_size:
            with path.open(encoding="utf-8", newline="") as f:
                fieldnames = next(csv.reader(f))
        if resume and path.exists() and not as_csv:
            _drop_torn_line(path)
        out: TextIO = path.open("a" if resume else "w", encoding="utf-8", newline="")
        if resume and path.stat().st_size and not path.read_bytes().endswith(b"\n"):
            out.write("\n")  # a CSV row cut off by a kill stays apart from the next row
        return cls(out, as_csv, fieldnames)

    def write(self, row: dict[str, Any]) -> None:
        if self.csv:
            flat = {
                k: " | ".join(map(str, v)) if isinstance(v, list) else v for k, v in row.items()
            }
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
    return output.with_name(output.name + ".review.jsonl")


@dataclass(frozen=True)
class Job:
    """A valid row, ready to grade: its input line, its id (`row_key`), and the raw row kept for
    the output."""

    line: int
    key: str
    raw: dict[str, Any]
    row: Row


def check_paths(input_path: Path, output: Path, resume: bool) -> None:
    """A bad input or output path is an error before any work."""
    check_input(input_path)
    if output.suffix.lower() not in (".csv", ".jsonl"):
        raise InputError(f"{output}: output must be .csv or .jsonl")
    if not output.parent.is_dir():
        raise InputError(f"{output.parent}: no such folder for the output")
    if output.exists() and not resume:
        raise InputError(f"{output} exists: pass --resume to continue it, or remove it")


class Output:
    """The writing side of a batch run, whatever grades the rows: graded rows appended and
    flushed one by one to OUTPUT (and OUTPUT.review.jsonl below `review_below`), failed rows to
    OUTPUT.errors.jsonl (rewritten each run: failed rows are retried), counts in `summary`."""

    def __init__(
        self,
        writer: Writer,
        errs: TextIO,
        review: Writer | None,
        summary: Summary,
        review_below: float | None = None,
        progress: Callable[[int], object] | None = None,
    ) -> None:
        self.writer, self.errs, self.review, self.summary = writer, errs, review, summary
        self.progress, self.review_below = progress, review_below

    @classmethod
    def open(
        cls,
        output: Path,
        grader_name: str,
        resume: bool = False,
        review_below: float | None = None,
        progress: Callable[[int], object] | None = None,
    ) -> Output:
        writer = Writer.open(output, resume)
        errs = errors_path(output).open("w", encoding="utf-8")
        review = Writer.open(review_path(output), resume) if review_below is not None else None
        return cls(writer, errs, review, Summary(grader=grader_name), review_below, progress)

    def fail(self, line: int, key: str, reason: str) -> None:
        self.errs.write(json.dumps({"line": line, "id": key, "reason": reason}) + "\n")
        self.errs.flush()
        self.summary.errors += 1

    def done(self, job: Job, grade: Grade) -> None:
        row = output_row(job.raw, job.key, grade)
        self.writer.write(row)
        below = self.review_below is not None and grade.confidence < self.review_below
        if self.review is not None and below:
            self.review.write(row)
        self.summary.graded += 1
        self.summary.scores.append(grade.score)
        self.summary.flagged.update(grade.flags)

    def result(self, job: Job, graded: Grade | Exception) -> None:
        """Write one row's outcome: its grade, or why it could not be graded."""
        if isinstance(graded, Exception):
            self.fail(job.line, job.key, failure_reason(graded))
        else:
            self.done(job, graded)

    def advance(self, n: int = 1) -> None:
        if self.progress:
            self.progress(n)

    def close(self) -> None:
        self.writer.close()
        self.errs.close()
        if self.review is not None:
            self.review.close()


def jobs(input_path: Path, settings: Settings, skip: set[str], out: Output) -> Iterator[Job]:
    """The rows of INPUT that are to be graded, in order. Every other row is accounted for on
    the way: unreadable, invalid, too long or repeated-id rows go to the errors file, rows whose
    id is in `skip` (already in the output: resume) are counted as skipped."""
    first_line: dict[str, int] = {}
    for line, raw, problem in read_rows(input_path):
        key = row_key(raw or {}, line)
        if raw is not None and key in first_line:
            out.fail(line, key, f"repeated id: line {first_line[key]} has the same id")
            continue
        first_line.setdefault(key, line)
        if key in skip:
            out.summary.skipped += 1
            out.advance()
            continue
        if raw is None:
            out.fail(line, key, problem or "unreadable row")
            continue
        try:
            row = Row.model_validate(raw | {"id": str(raw["id"]) if raw.get("id") else None})
        except ValidationError as e:
            err = e.errors()[0]
            field_name = ".".join(map(str, err["loc"]))
            # A CSV row with fewer fields than the header leaves the rest None: say so plainly.
            missing = err["type"] in ("missing", "string_type") and raw.get(field_name) is None
            why = f"no {field_name} (missing column or empty field)" if missing else err["msg"]
            out.fail(line, key, f"{field_name}: {why}")
            continue
        if problem := too_long(row.answer, settings):
            out.fail(line, key, problem)
            continue
        yield Job(line, key, raw, row)


def grade_file(
    input_path: Path,
    output: Path,
    grader: Grader,
    settings: Settings,
    index: Index | None,
    concurrency: int = 4,
    resume: bool = False,
    progress: Callable[[int], object] | None = None,
    review_below: float | None = None,
) -> Summary:
    """Grade every row of INPUT into OUTPUT; with `review_below`, grades whose confidence is
    lower also go to OUTPUT.review.jsonl for a person to check."""
    check_paths(input_path, output, resume)
    skip = done_keys(output) if resume else set()
    out = Output.open(output, grader.name, resume, review_below, progress)
    references = ReferenceCache(index, settings)
    pending: list[tuple[Job, tuple[str, str, ReferenceSet]]] = []

    def flush_chunk() -> None:
        graded = grade_isolated(grader, [item for _, item in pending])
        for (job, _), g in zip(pending, graded, strict=True):
            out.result(job, g)
        out.advance(len(pending))
        pending.clear()

    pool = None if grader.batched else ThreadPoolExecutor(max_workers=max(1, concurrency))
    running: dict[Future[list[Grade]], Job] = {}

    def reap(block: bool) -> None:
        finished, _ = (
            wait(list(running), return_when=FIRST_COMPLETED)
            if block
            else ([f for f in running if f.done()], None)
        )
        for fut in finished:
            job = running.pop(fut)
            try:
                out.done(job, fut.result()[0])
            except Exception as e:
                out.fail(job.line, job.key, failure_reason(e))
            out.advance()

    try:
        for job in jobs(input_path, settings, skip, out):
            row = job.row
            try:
                item = (row.question, row.answer, references(row.question, row.reference_answer))
            except Exception as e:
                out.fail(job.line, job.key, failure_reason(e))
                continue
            if pool is None:
                pending.append((job, item))
                if len(pending) >= CHUNK:
                    flush_chunk()
            else:
                running[pool.submit(grader.grade_many, [item])] = job
                while len(running) >= 2 * concurrency:
                    reap(block=True)
        if pending:
            flush_chunk()
        while running:
            reap(block=True)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        out.close()
    return out.summary


def failure_reason(e: Exception) -> str:
    """A user-facing reason: the message of our own errors, the type of anything else."""
    if isinstance(e, InterviewerError):
        return str(e)
    return f"could not be graded ({type(e).__name__}: {e})"
