"""The `interviewer` command: a thin edge that builds settings and translates errors."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .config import Settings
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
        f"in {settings.index_dir} ({report.seconds:.2f} s)"
    )
    return 1 if report.problems else 0  # skipped documents: the rest is indexed


def _index(settings: Settings) -> Any:
    from .embeddings import default_embedder
    from .index import Index

    return Index(settings.index_dir, default_embedder())


def _bank(settings: Settings) -> Any:
    from .bank import Bank
    from .errors import IndexMissingError
    from .index import current_generation

    gen = current_generation(settings.index_dir)
    if gen is None:
        raise IndexMissingError(f"no index at {settings.index_dir}: run `interviewer ingest` first")
    return Bank.load(gen / "bank.json")


def cmd_bank(args: argparse.Namespace, settings: Settings) -> int:
    from .references import load_rubrics, rubric_of

    bank = _bank(settings)
    if args.format == "json":
        data = bank.to_json()
        rubrics = load_rubrics(settings.data_dir)
        for q, d in zip(bank.questions, data["questions"], strict=True):
            r = rubric_of(q, rubrics)
            d["rubric"] = r.to_dict() if r else None
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    for group, counts in bank.counts().items():
        print(f"by {group}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print()
    print(f"{'id':<13} {'diff':<6} {'kind':<13} {'vars':>4} {'kps':>4}  question")
    for q in bank.questions:
        print(
            f"{q.id:<13} {q.difficulty:<6} {q.kind:<13} {len(q.variants):>4} "
            f"{len(q.key_points):>4}  {q.text[:90]}"
        )
        print(f"{'':<13} source {q.source} [{q.span[0]}:{q.span[1]}]; topics {', '.join(q.topics)}")
    return 0


def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    index = _index(settings)
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
    _extra_commands(sub)
    return parser


def _extra_commands(sub: Any) -> None:
    """Commands defined by other modules' edges (grading, evals, the app)."""
    from . import cli_more

    cli_more.register(sub)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    overrides = {"data_dir": args.data_dir} if args.data_dir else {}
    try:
        settings = Settings(**overrides)
        return int(args.func(args, settings))
    except InterviewerError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
