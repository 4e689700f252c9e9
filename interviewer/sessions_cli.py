"""`interviewer sessions migrate`: copy the sessions of the SQLite file under the data dir into
the database that several app instances share (INTERVIEWER_DATABASE_URL, e.g. PostgreSQL)."""

from __future__ import annotations

import argparse
from contextlib import closing
from pathlib import Path
from typing import Any

from .config import Settings
from .errors import InputError
from .store import Store, database_url, migrate


def cmd_sessions_migrate(args: argparse.Namespace, settings: Settings) -> int:
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


def register(sub: Any) -> None:
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
