"""The `interviewer` command: a thin edge that builds settings and translates errors."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from .admin import cmd_rubrics, cmd_sessions_migrate
from .config import Settings, load_settings
from .errors import InterviewerError


def _progress_factory(quiet: bool) -> Any:
    def start(desc: str, total: int) -> Any:
        from tqdm import tqdm

        bar = tqdm(
            total=total, desc=desc, unit="text", disable=quiet or total == 0, file=sys.stderr
        )
        return bar.update

    return start


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    from .embeddings import default_embedder
    from .index import place_for
    from .ingest import ingest

    report = ingest(
        settings,
        default_embedder(),
        [Path(p) for p in args.paths],
        progress=_progress_factory(args.quiet),
    )
    for problem in report.problems:
        print(f"warning: {problem}", file=sys.stderr)
    if report.skipped:
        print(f"still skipped (unchanged since reported): {'; '.join(report.skipped)}")
    if report.no_questions:
        print(
            f"note: no questions found in {', '.join(report.no_questions)}: indexed as reference "
            "passages only (a question is a heading or a 'Q:' line ending in '?', its answer "
            "below it)",
            file=sys.stderr,
        )
    if report.changed:
        for label, names in (
            ("added", report.added),
            ("updated", report.updated),
            ("removed", report.removed),
        ):
            if names:
                print(f"{label}: {', '.join(names)}")
    else:
        print("index is up to date")
    print(
        f"{report.questions} questions, {report.passages} passages "
        f"in {place_for(settings)} ({report.seconds:.2f} s)"
    )
    return 1 if report.problems else 0  # skipped documents: the rest is indexed


def _index_or_none(settings: Settings) -> Any:
    from .index import has_index, open_index

    if not has_index(settings):
        _no_index_note()
        return None
    return open_index(settings)


def _no_index_note() -> None:
    print(
        "note: no index yet; grading against the inputs' reference answers only "
        "(run `interviewer ingest` to use the guides)",
        file=sys.stderr,
    )


def _bank(settings: Settings) -> Any:
    from .index import load_bank

    return load_bank(settings)


def cmd_bank(args: argparse.Namespace, settings: Settings) -> int:
    from .references import load_rubrics, rubric_of

    bank = _bank(settings)
    rubrics = load_rubrics(settings.data_dir)
    if args.format == "json":
        data = bank.to_json()
        for q, d in zip(bank.questions, data["questions"], strict=True):
            r = rubric_of(q, rubrics)
            d["rubric"] = r.to_dict() if r else None
            # What grading uses: a rubric without key points (an advice question's) leaves the
            # reference's own sentences as key points ("auto").
            d["graded_with"] = "auto" if not (r and r.key_points) else r.origin
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    for group, counts in bank.counts().items():
        print(f"by {group}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print()
    print(f"{'id':<13} {'diff':<6} {'kind':<13} {'vars':>4} {'kps':>4}  question")
    for q in bank.questions:
        # the key points grading uses: the rubric's, else the reference's own sentences
        r = rubric_of(q, rubrics)
        kps = len(r.key_points) if r and r.key_points else len(q.key_points)
        print(
            f"{q.id:<13} {q.difficulty:<6} {q.kind:<13} {len(q.variants):>4} "
            f"{kps:>4}  {q.text[:90]}"
        )
        print(f"{'':<13} source {q.source} [{q.span[0]}:{q.span[1]}]; topics {', '.join(q.topics)}")
    return 0


def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    from .index import open_index

    index = open_index(settings)
    filters = {
        "difficulty": args.difficulty,
        "kind": args.kind,
        "topic": args.topic,
        "source": args.source,
    }
    results = index.search(args.query, k=args.k, **filters)
    if args.format == "json":
        print(
            json.dumps(
                {k: [h.to_dict() for h in v] for k, v in results.items()},
                ensure_ascii=False,
                indent=1,
            )
        )
        return 0
    for section, hits in results.items():
        print(f"{section}:")
        for n, h in enumerate(hits, 1):
            where = f"{h.metadata.get('source')}[{h.metadata.get('start')}:{h.metadata.get('end')}]"
            print(f"{n:>3}. {h.score:.3f}  {h.text[:100]!s}")
            print(f"{'':>10}{h.id}  {where}")
    return 0


def cmd_grade(args: argparse.Namespace, settings: Settings) -> int:
    from tqdm import tqdm

    from .batch import check_paths, grade_file
    from .errors import InputError
    from .grader import make_grader
    from .rows import count_rows

    ray = args.engine in ("ray", "ray-vllm")
    if args.address and not ray:
        raise InputError("--address is for --engine ray or ray-vllm")
    if args.engine == "ray-vllm" and args.grader != "llm":
        raise InputError("--engine ray-vllm runs the LLM grader's model: add --grader llm")
    engine = {"llm_engine": "server" if ray else args.engine} if args.engine else {}
    settings = settings.model_copy(update={"grader": args.grader} | engine)
    src, out = Path(args.input), Path(args.output)
    check_paths(src, out, args.resume)  # before the progress bar: the error alone
    with tqdm(
        desc=f"grading ({args.grader})",
        unit="answer",
        total=count_rows(src),
        file=sys.stderr,
        disable=args.quiet,
    ) as bar:
        run = {"resume": args.resume, "progress": bar.update, "review_below": args.review_below}
        if ray:
            from . import ray_batch
            from .index import has_index

            use_index = has_index(settings)
            if not use_index and args.engine == "ray":
                _no_index_note()
            if args.engine == "ray-vllm":
                replicas = args.concurrency or 1
                summary = ray_batch.grade_file_ray_vllm(
                    src, out, settings, use_index, replicas, address=args.address, **run
                )
            else:
                actors = args.concurrency or ray_batch.DEFAULT_ACTORS
                summary = ray_batch.grade_file_ray(
                    src, out, args.grader, settings, use_index, actors, address=args.address, **run
                )
        else:
            index = _index_or_none(settings)
            grader = make_grader(args.grader, settings, index=index)
            summary = grade_file(src, out, grader, settings, index, args.concurrency or 8, **run)
    print(json.dumps(summary.record(out, args.review_below is not None)))
    return 0 if summary.errors == 0 else 1


def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    from .evals import headline, run

    out = Path(args.out or f"out/evals/{args.dataset}-{args.split}-{args.grader}")
    m = run(
        settings,
        args.dataset,
        args.split,
        args.grader,
        out,
        lambda: _index_or_none(settings),
        repeats=args.repeats,
        command="interviewer " + " ".join(sys.argv[1:]) if sys.argv else "",
        quiet=args.quiet,
    )
    print(f"{args.dataset}/{args.split} {args.grader}: {headline(m)}; report: {out / 'report.md'}")
    return 0


def cmd_app(args: argparse.Namespace, settings: Settings) -> int:
    from .webapp import main as run_app

    run_app(settings, args.host, args.port)
    return 0


def _fraction(text: str) -> float:
    """A confidence threshold: 1.5 would send every grade to review, -1 none."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is outside 0-1 (confidence runs from 0 to 1)")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="interviewer", description=__doc__)
    parser.add_argument("--data-dir", type=Path, help="where the index and sessions live")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", help="build or update the index from the corpus and PATHs")
    p.add_argument("paths", nargs="*", help="extra .txt/.md/.html/.pdf files or folders")
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("bank", help="list the question bank")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=cmd_bank)

    p = sub.add_parser("search", help="retrieve questions and passages")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=5)
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--difficulty", choices=["easy", "medium", "hard"])
    p.add_argument("--kind")
    p.add_argument("--topic")
    p.add_argument("--source")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("app", help="start the mock interview in the browser")
    p.add_argument("--host", help="default 127.0.0.1 (INTERVIEWER_HOST)")
    p.add_argument("--port", type=int, help="default 7860 (INTERVIEWER_PORT)")
    p.set_defaults(func=cmd_app)

    p = sub.add_parser("grade", help="grade a CSV/JSONL file of written answers")
    p.add_argument("input")
    p.add_argument("-o", "--output", required=True, help="graded .jsonl or .csv")
    p.add_argument("--grader", choices=["offline", "llm"], default="offline")
    p.add_argument(
        "--concurrency",
        type=int,
        help="parallel LLM requests (default 8); --engine ray: grading actors (default 2); "
        "--engine ray-vllm: vLLM replicas, one GPU each (default 1)",
    )
    p.add_argument(
        "--engine",
        choices=["server", "inprocess", "ray", "ray-vllm"],
        help="LLM grader: an OpenAI-compatible server (default), or vllm.LLM in this process "
        "(needs vLLM and a GPU; INTERVIEWER_LLM_ENGINE); ray: grade on Ray actors, on this "
        "machine or a cluster (--address; needs interviewer[ray]; the LLM grader then uses "
        "the server); ray-vllm: the LLM grader's model run by vLLM on Ray GPU workers",
    )
    p.add_argument(
        "--address",
        help="--engine ray or ray-vllm: the Ray cluster to use (`auto`, or HEAD:6379); "
        "default: start a local Ray",
    )
    p.add_argument("--resume", action="store_true", help="continue an interrupted run")
    p.add_argument(
        "--review-below",
        type=_fraction,
        metavar="X",
        help="also write grades with confidence below X (0-1) to OUTPUT.review.jsonl",
    )
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser("rubrics", help="check rubrics, or write LLM rubrics for your documents")
    p.add_argument("action", choices=["check", "build"])
    p.add_argument("--llm", action="store_true", help="build: write rubrics with the LLM")
    p.add_argument("--force", action="store_true", help="build: ignore the cache")
    p.set_defaults(func=cmd_rubrics)

    p = sub.add_parser("eval", help="measure a grader against human grades")
    p.add_argument("dataset", help="mohler | scientsbank | saf | indomain | PATH.jsonl")
    p.add_argument("--grader", choices=["offline", "llm"], default="offline")
    p.add_argument("--split", choices=["dev", "report", "all"], default="report")
    p.add_argument("--out", help="report folder (default out/evals/DATASET-SPLIT-GRADER)")
    p.add_argument("--repeats", type=int, default=1, help="grade K times; report score spread")
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("sessions", help="manage the stored interview sessions")
    actions = p.add_subparsers(dest="action", required=True)
    m = actions.add_parser(
        "migrate",
        help="copy the sessions of the SQLite file into a shared database (run it again any "
        "time: sessions already there are not copied twice)",
    )
    m.add_argument(
        "--to",
        metavar="URL",
        help="a SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db "
        "(default: INTERVIEWER_DATABASE_URL)",
    )
    m.add_argument(
        "--from",
        dest="source",
        metavar="PATH|URL",
        help="a SQLite file or database URL (default: DATA_DIR/sessions.sqlite3)",
    )
    m.set_defaults(func=cmd_sessions_migrate)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    overrides = {"data_dir": args.data_dir} if args.data_dir else {}
    try:
        settings = load_settings(**overrides)
        return int(args.func(args, settings))
    except InterviewerError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`interviewer bank | head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (for the final flush)
        return 0


if __name__ == "__main__":
    sys.exit(main())
