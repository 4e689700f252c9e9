"""Batch grading of written answers: CSV/JSONL in, graded JSONL/CSV out, resumable."""

from __future__ import annotations

import json
import re
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
from .output import Writer, errors_path, review_path
from .records import Grade, ReferenceSet
from .references import ReferenceCache
from .rows import check_input, done_keys, read_rows

BANK_ID = re.compile(r"q-[0-9a-f]{10}")
FIRST_CHUNK = 8  # rows in the first batched call; each later one doubles, up to CHUNK

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
    question_id: str | None = None  # a bank question's id (`interviewer bank`), not its words

    @field_validator("question_id")
    @classmethod
    def _bank_ids_only(cls, v: str | None) -> str | None:
        # A file's own question numbering ("Q1") under that name is just another column.
        return v if v and BANK_ID.fullmatch(v.strip()) else None

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
    # counted apart, so a low mean can be read; rows with no reference material at all are
    # counted here and left out of the mean.
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
        # (a row with no reference material was not graded: its 0 is not in the mean)
        if "no_reference" not in grade.flags:
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

    def fail(line: int, key: str, reason: str) -> None:
        out.fail(line, key, reason)
        out.advance()

    for line, raw, problem in read_rows(input_path):
        key = row_key(raw or {}, line)
        if raw is None or problem:
            fail(line, key, problem or "unreadable row")
            continue
        if key in first_line:
            fail(line, key, f"repeated id: line {first_line[key]} has the same id")
            continue
        first_line[key] = line
        if key in skip:
            out.summary.skipped += 1
            out.advance()
            continue
        try:
            row = Row.model_validate(raw | {"id": str(raw["id"]) if raw.get("id") else None})
        except ValidationError as e:
            fail(line, key, invalid_reason(e, raw))
            continue
        if problem := too_long(row.answer, settings):
            fail(line, key, problem)
            continue
        yield Job(line, key, raw, row)


def invalid_reason(e: ValidationError, raw: dict[str, Any]) -> str:
    """The first thing wrong with a row, in the user's words, not pydantic's ("Value error,
    question is empty"; "Input should be a valid string" for an answer of 42)."""
    err = e.errors()[0]
    name = ".".join(map(str, err["loc"]))
    if err["type"] == "missing" or raw.get(name) is None:
        return f"{name}: no {name} (missing column or empty field)"
    if err["type"] == "string_type":
        return f"{name}: not text (a {type(raw[name]).__name__})"
    return f"{name}: {str(err['msg']).removeprefix('Value error, ')}"


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
    # The first chunks are small, so that rows reach the output (and the progress bar moves)
    # within seconds; later ones grow to CHUNK, where batching pays (trial G: a 36-row run
    # wrote nothing for 24 s, and a kill at 15 s had kept no row).
    chunk = FIRST_CHUNK

    def flush_chunk() -> None:
        nonlocal chunk
        graded = grade_isolated(grader, [item for _, item in pending])
        for (job, _), g in zip(pending, graded, strict=True):
            out.result(job, g)
        out.advance(len(pending))
        pending.clear()
        chunk = min(CHUNK, 2 * chunk)

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
                refs = references(row.question, row.reference_answer, row.question_id or None)
                item = (row.question, row.answer, refs)
            except Exception as e:
                out.fail(job.line, job.key, failure_reason(e))
                out.advance()
                continue
            if pool is None:
                pending.append((job, item))
                if len(pending) >= chunk:
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
