"""The maintenance commands: `interviewer rubrics` (check, or build LLM rubrics for your
documents) and `interviewer sessions migrate`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .config import Settings


def cmd_rubrics(args: argparse.Namespace, settings: Settings) -> int:
    from .authoring import build_llm
    from .errors import InputError
    from .index import has_index, load_bank, open_index
    from .llm import make_chat, ping
    from .rubric_review import lint
    from .rubrics import authored_dir, parse_file

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
    if settings.llm_engine != "inprocess" and (down := ping(settings)):
        # (without it, every rubric failed in turn: 30 s and "failed": 9, no reason, trial H)
        raise InputError(f"`rubrics build --llm` needs the LLM server: {down} (see README)")
    bank = load_bank(settings)
    opened: list[Any] = []  # the index, opened once, when a question first needs passages

    def material(q: Any) -> str:
        if q.reference_answers:
            return "\n\n".join(q.reference_answers)
        if not opened:
            opened.append(open_index(settings) if has_index(settings) else None)
        index = opened[0]
        hits = index.search_passages(q.text, k=3) if index else []
        return "\n\n".join(h.text for h in hits if h.score >= settings.relevance_threshold)

    counts = build_llm(bank, settings.data_dir, make_chat(settings), material, force=args.force)
    print(json.dumps(counts | {"file": str(settings.data_dir / "rubrics" / "llm.yaml")}))
    return 1 if counts["failed"] else 0


def cmd_sessions_migrate(args: argparse.Namespace, settings: Settings) -> int:
    from contextlib import closing

    from .errors import InputError
    from .store import Store, database_url, migrate

    source = args.source or str(settings.data_dir / "sessions.sqlite3")
    target = args.to or settings.database_url
    if not target:
        raise InputError("where to? give --to URL or set INTERVIEWER_DATABASE_URL")
    src, dst = database_url(source), database_url(target)
    if src.get_backend_name() == "sqlite" and not Path(src.database or "").is_file():
        raise InputError(f"no sessions to migrate: {src.database} does not exist")
    if src == dst:
        raise InputError("the source and the target are the same database")
    with closing(Store(source)) as old, closing(Store(target)) as new:
        done = migrate(old, new)
    print(
        f"{new!r}: {done.copied} sessions copied, {done.extended} with new turns appended, "
        f"{done.present} already there"
    )
    if done.conflicts:
        print(
            f"kept as they are there ({len(done.conflicts)}, answered differently since the "
            f"last migration): {', '.join(done.conflicts)}"
        )
    return 1 if done.conflicts else 0
