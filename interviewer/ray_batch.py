"""Batch grading as a Ray Data pipeline (`interviewer grade ... --engine ray`).

The driver reads and checks the rows exactly as `batch.grade_file` does (`batch.jobs`: bad,
too-long and repeated-id rows go to the errors file; on resume, rows already in the output are
skipped), puts the valid ones in a Ray Dataset, and a `map_batches` stage on CPU actors gathers
the references and grades them. Each actor builds its embedder, index and grader once. The
driver writes every result as it arrives with the same `batch.Output` (flushed per row), so
`--resume` works the same: a row graded but not yet written when the driver dies is graded
again on resume, never lost or written twice.

With `--grader llm` each actor's grader talks to the OpenAI-compatible server over HTTP, one
request at a time: the number of actors bounds the requests in flight.
"""

from __future__ import annotations

import json
import math
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .batch import Job, Output, Summary, check_paths, failure_reason, jobs
from .config import Settings
from .errors import InterviewerError, require
from .grader import CHUNK, grade_isolated, make_grader
from .index import open_index
from .llm_grader import LLMGrader, Request, reply_tokens
from .references import ReferenceCache
from .rows import done_keys

if TYPE_CHECKING:
    from .records import ReferenceSet

DEFAULT_ACTORS = 2


class GradeStage:
    """The Ray Data stage: one instance per actor. Rows in (`key`, `question`, `answer`,
    `reference_answer`, `question_id`), rows out (`key`, `grade`: the pickled Grade or b"",
    `error`: why the row could not be graded or "")."""

    def __init__(self, kind: str, settings: Settings, use_index: bool) -> None:
        index = open_index(settings) if use_index else None
        self.grader = make_grader(kind, settings, index=index)
        self.references = ReferenceCache(index, settings)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        keys = [str(k) for k in batch["key"]]
        outcome: dict[int, Any] = {}
        items, where = [], []
        for n, (q, a, ref, qid) in enumerate(
            zip(
                batch["question"],
                batch["answer"],
                batch["reference_answer"],
                batch["question_id"],
                strict=True,
            )
        ):
            try:
                items.append((str(q), str(a), self.references(str(q), ref or None, qid or None)))
                where.append(n)
            except Exception as e:
                outcome[n] = e
        if self.grader.batched:
            graded = grade_isolated(self.grader, items)
        else:  # one request at a time: a failure costs only its own row
            graded = [grade_isolated(self.grader, [item])[0] for item in items]
        outcome.update(zip(where, graded, strict=True))
        grades, errors = [], []
        for n in range(len(keys)):
            g = outcome[n]
            if isinstance(g, Exception):
                grades.append(b"")
                errors.append(failure_reason(g))
            else:
                grades.append(pickle.dumps(g))
                errors.append("")
        return {"key": keys, "grade": grades, "error": errors}


def grade_file_ray(
    input_path: Path,
    output: Path,
    kind: str,
    settings: Settings,
    use_index: bool,
    concurrency: int = DEFAULT_ACTORS,
    resume: bool = False,
    progress: Callable[[int], object] | None = None,
    review_below: float | None = None,
    address: str | None = None,
) -> Summary:
    """`batch.grade_file` on Ray: `concurrency` grading actors, on the cluster at `address`
    (`ray.init(address=...)`, e.g. "auto"), else on a local Ray with that many CPUs. A Ray
    already initialised in this process is used as it is."""
    require("ray", "ray")
    import ray

    check_paths(input_path, output, resume)
    skip = done_keys(output) if resume else set()
    out = Output.open(output, kind, resume, review_below, progress)
    started = False
    try:
        todo: dict[str, Job] = {j.key: j for j in jobs(input_path, settings, skip, out)}
        if not todo:
            return out.summary
        if not ray.is_initialized():
            if address:
                ray.init(address=address)
            else:
                ray.init(num_cpus=max(1, concurrency), include_dashboard=False)
            started = True
        actors = max(1, concurrency)
        ds = _pipeline(ray, list(todo.values()), kind, settings, use_index, actors)

        def write(row: dict[str, Any], job: Job, _: Any) -> None:
            if row["error"]:
                out.fail(job.line, job.key, str(row["error"]))
            else:
                out.result(job, pickle.loads(row["grade"]))

        _drain(ray, ds, {k: (j, None) for k, j in todo.items()}, write, out, output)
    finally:
        out.close()
        if started:
            ray.shutdown()
    return out.summary


def _drain(
    ray: Any,
    ds: Any,
    waiting: dict[str, tuple[Job, Any]],
    write: Callable[[dict[str, Any], Job, Any], None],
    out: Output,
    output: Path,
) -> None:
    """Write each result row as it arrives, once: a retried task's repeats are dropped, and a
    row the pipeline never returned is reported, never silently lost."""
    try:
        for row in ds.iter_rows():
            found = waiting.pop(str(row["key"]), None)
            if found is None:  # a retried task's repeat: the row is written already
                continue
            write(row, *found)
            out.advance()
    except ray.exceptions.RayError as e:
        raise InterviewerError(
            f"the Ray pipeline failed ({type(e).__name__}: {str(e)[:300]}); the rows graded "
            f"so far are in {output}: run again with --resume to grade the other {len(waiting)}"
        ) from e
    for job, _ in waiting.values():
        out.fail(job.line, job.key, "not graded: the Ray pipeline returned no result for it")


def _pipeline(
    ray: Any, todo: list[Job], kind: str, settings: Settings, use_index: bool, actors: int
) -> Any:
    # Rows stream back as soon as their batch is graded: small batches for a grader that sends
    # one request per answer; for the offline grader, batches big enough to batch well but
    # small enough that every actor gets work.
    batched = kind == "offline"
    size = max(1, min(CHUNK, math.ceil(len(todo) / (2 * actors)))) if batched else 1
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False  # the CLI has its own
    items = [
        {
            "key": j.key,
            "question": j.row.question,
            "answer": j.row.answer,
            "reference_answer": j.row.reference_answer or "",
            "question_id": j.row.question_id or "",
        }
        for j in todo
    ]
    blocks = max(1, min(math.ceil(len(items) / size), 16 * actors))
    ds = ray.data.from_items(items, override_num_blocks=blocks)
    return ds.map_batches(
        GradeStage,
        fn_constructor_args=(kind, settings, use_index),
        batch_size=size,
        batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=actors),
        num_cpus=1,
    )


# vLLM on Ray GPU workers (ray.data.llm): `interviewer grade IN -o OUT --grader llm --engine
# ray-vllm`. The driver reads and checks the rows and gathers references as above, and the LLM
# grader's own `plan` settles what the rules settle (written at once) or builds the request;
# the requests go through one `ray.data.llm` vLLM processor (`replicas` engines, one GPU
# each); each reply is read by the grader's own `finish`, as the server path reads it.


class RayEngine:
    """The LLM grader's model when vLLM runs inside Ray: requests are not sent from here but
    flow through the Ray Data processor, so only the name and provenance are used."""

    batched = True

    def __init__(self, settings: Settings) -> None:
        self.name = settings.llm_model

    def complete_json(self, messages: Any, schema: Any, max_tokens: int) -> str:
        raise InterviewerError("with --engine ray-vllm, requests go through the Ray processor")

    def stream(self, messages: Any, max_tokens: int) -> Any:
        raise InterviewerError("with --engine ray-vllm, requests go through the Ray processor")

    def complete_json_many(self, conversations: Any, schemas: Any, max_tokens: int) -> list[str]:
        raise InterviewerError("with --engine ray-vllm, requests go through the Ray processor")


def grade_file_ray_vllm(
    input_path: Path,
    output: Path,
    settings: Settings,
    use_index: bool,
    replicas: int = 1,
    resume: bool = False,
    progress: Callable[[int], object] | None = None,
    review_below: float | None = None,
    address: str | None = None,
    engine: Callable[[Any], Any] | None = None,
) -> Summary:
    """`batch.grade_file` with the LLM grader, its model run by vLLM on Ray GPU workers.
    `engine` maps the dataset of request rows (`key`, `messages`, `sampling_params`) to one
    with `key` and `generated_text`; by default the `ray.data.llm` vLLM processor. A reply
    that does not parse is that row's error (a batch job has no repair round): `--resume`
    grades it again."""
    require("ray", "ray")
    import ray

    check_paths(input_path, output, resume)
    settings = settings.model_copy(update={"llm_engine": "ray"})
    grader = LLMGrader(RayEngine(settings), settings)
    skip = done_keys(output) if resume else set()
    out = Output.open(output, grader.name, resume, review_below, progress)
    references = ReferenceCache(open_index(settings) if use_index else None, settings)
    started = False
    try:
        waiting: dict[str, tuple[Job, Request]] = {}
        for job in jobs(input_path, settings, skip, out):
            try:
                row = job.row
                refs = references(row.question, row.reference_answer or None, row.question_id)
                item = (job.row.question, job.row.answer, refs)
                planned = grader.plan(item)
            except Exception as e:
                out.fail(job.line, job.key, failure_reason(e))
                out.advance()
                continue
            if isinstance(planned, Request):
                waiting[job.key] = (job, planned)
            else:
                out.result(job, planned)
                out.advance()
        if not waiting:
            return out.summary
        if not ray.is_initialized():
            ray.init(address=address) if address else ray.init(include_dashboard=False)
            started = True
        rows = [
            {"key": key, "messages": req.conv, **vllm_sampling(grader, req)}
            for key, (_, req) in waiting.items()
        ]
        ds = ray.data.from_items(rows)
        replies = (engine or _vllm_processor(settings, replicas))(ds)

        def write(row: dict[str, Any], job: Job, req: Request) -> None:
            try:
                out.result(job, grader.finish(req, str(row["generated_text"])))
            except ValueError as e:
                out.fail(job.line, job.key, f"the model's reply was invalid: {e}")

        _drain(ray, replies, waiting, write, out, output)
    finally:
        out.close()
        if started:
            ray.shutdown()
    return out.summary


def vllm_sampling(grader: LLMGrader, req: Request) -> dict[str, Any]:
    """A request row's sampling fields, as the server path sends them. The reply schema
    travels as JSON text (each row's enums differ, which Arrow cannot hold as one struct
    type); vLLM's structured outputs take the text as it is."""
    max_tokens = grader.settings.llm_max_tokens
    return {
        "sampling_params": {
            "temperature": 0.0,
            "seed": grader.settings.llm_seed,
            "max_tokens": max(max_tokens, reply_tokens(req.schema)),
            "structured_outputs": {"json": json.dumps(req.schema)},
        }
    }


def _vllm_processor(settings: Settings, replicas: int) -> Callable[[Any], Any]:
    from ray.data.llm import build_processor

    return build_processor(
        vllm_processor_config(settings, concurrency=replicas),
        preprocess=lambda row: {
            "messages": row["messages"],
            "sampling_params": row["sampling_params"],
        },
        postprocess=lambda row: {"key": row["key"], "generated_text": row["generated_text"]},
    )


def vllm_processor_config(
    settings: Settings,
    concurrency: int = 1,
    batch_size: int = 32,
    accelerator_type: str | None = None,
) -> Any:
    """`ray.data.llm.vLLMEngineProcessorConfig` for the grading model: the engine as
    `--engine inprocess` builds it (`llm.vllm_engine_kwargs`), `concurrency` replicas, each
    on one GPU. Pass it to `ray.data.llm.build_processor` with `vllm_request` rows."""
    require("ray", "ray")
    from ray.data.llm import vLLMEngineProcessorConfig

    from .llm import vllm_engine_kwargs

    return vLLMEngineProcessorConfig(
        model_source=settings.llm_model,
        engine_kwargs=vllm_engine_kwargs(settings),
        concurrency=concurrency,
        batch_size=batch_size,
        accelerator_type=accelerator_type,
    )


def vllm_request(
    grader: LLMGrader, question: str, answer: str, refs: ReferenceSet
) -> dict[str, Any] | None:
    """The engine stage's row for one answer: the messages, reply JSON schema and sampling the
    server path sends; None when a rule settles the grade without the model."""
    planned = grader.plan((question, answer, refs))
    if not isinstance(planned, Request):
        return None
    return {"messages": planned.conv, **vllm_sampling(grader, planned)}
