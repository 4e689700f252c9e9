"""CLI commands for grading and evals (kept apart so cli.py stays small)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .config import Settings


def _index_or_none(settings: Settings) -> Any:
    from .embeddings import default_embedder
    from .index import Index, current_generation

    if current_generation(settings.index_dir) is None:
        print(
            "note: no index yet; grading against the inputs' reference answers only "
            "(run `interviewer ingest` to use the guides)",
            file=sys.stderr,
        )
        return None
    return Index(settings.index_dir, default_embedder())


def cmd_grade(args: argparse.Namespace, settings: Settings) -> int:
    from tqdm import tqdm

    from .batch import errors_path, grade_file, review_path
    from .grader import make_grader

    settings = settings.model_copy(
        update={"grader": args.grader} | ({"llm_engine": args.engine} if args.engine else {})
    )
    index = _index_or_none(settings)
    grader = make_grader(args.grader, settings, index=index)
    with tqdm(
        desc=f"grading ({args.grader})", unit="answer", file=sys.stderr, disable=args.quiet
    ) as bar:
        summary = grade_file(
            Path(args.input),
            Path(args.output),
            grader,
            settings,
            index,
            concurrency=args.concurrency,
            resume=args.resume,
            progress=bar.update,
            review_below=args.review_below,
        )
    print(
        json.dumps(
            {
                "graded": summary.graded,
                "resumed_past": summary.skipped,
                "mean_score": summary.mean,
                "grader": summary.grader,
                "errors": summary.errors,
                "output": args.output,
                "errors_file": str(errors_path(Path(args.output))),
                **(
                    {"review_file": str(review_path(Path(args.output)))}
                    if args.review_below is not None
                    else {}
                ),
            }
        )
    )
    return 0 if summary.errors == 0 else 1


def cmd_rubrics(args: argparse.Namespace, settings: Settings) -> int:
    from .authoring import build_llm
    from .cli import _bank
    from .llm import make_chat
    from .rubrics import authored_dir, lint, parse_file

    if args.action == "check":
        folders = [authored_dir(), settings.data_dir / "rubrics"]
        bad = 0
        for path in sorted(p for f in folders if f.is_dir() for p in f.glob("*.yaml")):
            rubrics = parse_file(path)
            problems = [f"{r.question_id}: {p}" for r in rubrics for p in lint(r)]
            bad += len(problems)
            print(f"{path}: {len(rubrics)} rubrics, {len(problems)} problems")
            for line in problems:
                print(f"  {line}")
        return 1 if bad else 0
    if not args.llm:
        print("error: `rubrics build` needs --llm (automatic rubrics are written by ingest)")
        return 2
    bank = _bank(settings)

    def material(q: Any) -> str:
        if q.reference_answers:
            return "\n\n".join(q.reference_answers)
        index = _index_or_none(settings)
        hits = index.search_passages(q.text, k=3) if index else []
        return "\n\n".join(h.text for h in hits if h.score >= settings.relevance_threshold)

    counts = build_llm(bank, settings.data_dir, make_chat(settings), material, force=args.force)
    print(json.dumps(counts | {"file": str(settings.data_dir / "rubrics" / "llm.yaml")}))
    return 1 if counts["failed"] else 0


def cmd_app(args: argparse.Namespace, settings: Settings) -> int:
    from .webapp import main as run_app

    run_app(settings, args.host, args.port)
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("app", help="start the mock interview in the browser")
    p.add_argument("--host", help="default 127.0.0.1 (INTERVIEWER_HOST)")
    p.add_argument("--port", type=int, help="default 7860 (INTERVIEWER_PORT)")
    p.set_defaults(func=cmd_app)

    p = sub.add_parser("grade", help="grade a CSV/JSONL file of written answers")
    p.add_argument("input")
    p.add_argument("-o", "--output", required=True, help="graded .jsonl or .csv")
    p.add_argument("--grader", choices=["offline", "llm"], default="offline")
    p.add_argument("--concurrency", type=int, default=8, help="parallel LLM requests")
    p.add_argument(
        "--engine",
        choices=["server", "inprocess"],
        help="LLM grader: an OpenAI-compatible server (default), or vllm.LLM in this process "
        "(needs vLLM and a GPU; INTERVIEWER_LLM_ENGINE)",
    )
    p.add_argument("--resume", action="store_true", help="continue an interrupted run")
    p.add_argument(
        "--review-below",
        type=float,
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
    from .evals import register as register_evals

    register_evals(sub)
