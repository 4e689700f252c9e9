"""Sessions and turns, written as they happen: a SQLite file under the data dir by default, or
any database SQLAlchemy reaches (INTERVIEWER_DATABASE_URL, e.g. PostgreSQL), which several app
instances behind a load balancer then share. The schema is created on first use."""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import sqlalchemy as sa

from .delivery import Spoken
from .errors import InputError, StaleSessionError, StorageError, require
from .records import Grade
from .session import Plan, Prompt, Session, Turn

if TYPE_CHECKING:
    from .config import Settings

metadata = sa.MetaData()
SESSIONS = sa.Table(
    "sessions",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("created_at", sa.Double, nullable=False),
    sa.Column("updated_at", sa.Double, nullable=False),
    sa.Column("status", sa.Text, nullable=False),
    sa.Column("data", sa.Text, nullable=False),  # the rest of the session, JSON (owner too)
    # A column of its own (added to files written before it): listing a browser's sessions
    # needs no JSON functions, which differ between databases.
    sa.Column("owner", sa.Text, nullable=False, server_default=""),
)
OWNER_INDEX = sa.Index("sessions_owner", SESSIONS.c.owner, SESSIONS.c.updated_at)
# The primary key makes a second write of a turn fail instead of doubling it.
TURNS = sa.Table(
    "turns",
    metadata,
    sa.Column("session_id", sa.Text, primary_key=True),
    sa.Column("n", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("data", sa.Text, nullable=False),
)
SCHEMA_LOCK = 0x1E7E4  # PostgreSQL advisory lock: one instance creates or migrates the schema


def turn_to_dict(t: Turn) -> dict[str, Any]:
    return {
        "prompt": asdict(t.prompt),
        "answer": t.answer,
        "grade": t.grade.to_dict(with_references=True) if t.grade else None,
        "answered_at": t.answered_at,
        "skipped": t.skipped,
        "hints": t.hints,
        "late": t.late,
        "spoken": asdict(t.spoken) if t.spoken else None,
    }


def turn_from_dict(d: dict[str, Any]) -> Turn:
    return Turn(
        Prompt(**d["prompt"]),
        d["answer"],
        Grade.from_dict(d["grade"]) if d["grade"] else None,
        d["answered_at"],
        d["skipped"],
        d["hints"],
        d["late"],
        Spoken(**d["spoken"]) if d.get("spoken") else None,  # sessions saved before it lack it
    )


def _mark(d: dict[str, Any]) -> tuple[Any, ...]:
    """What tells one stored turn from another answer to the same prompt."""
    p = d["prompt"]
    return (p["question_id"], p["asked_at"], d["answer"], d["answered_at"], d["skipped"])


def database_url(where: Path | str) -> sa.URL:
    """A path is a SQLite file; a string with `://` is a SQLAlchemy URL."""
    if isinstance(where, str) and "://" in where:
        try:
            return sa.make_url(where)
        except sa.exc.ArgumentError as e:
            raise InputError(f"not a database URL: {e}") from None
    return sa.URL.create("sqlite", database=str(Path(where)))


def _connect(url: sa.URL) -> sa.Engine:
    if url.get_backend_name() == "sqlite":
        if url.database and url.database != ":memory:":
            Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(url, connect_args={"timeout": 30})

        @sa.event.listens_for(engine, "connect")
        def _on_connect(dbapi: Any, _record: Any) -> None:
            dbapi.isolation_level = None  # transactions are begun below, not by the driver
            dbapi.execute("PRAGMA journal_mode=WAL")

        # IMMEDIATE: a save reads the turns stored and writes after them under one write lock,
        # also when two processes share the file.
        @sa.event.listens_for(engine, "begin")
        def _on_begin(conn: sa.Connection) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    if url.get_backend_name() == "postgresql" and url.get_driver_name() == "psycopg":
        require("psycopg", "postgres")
    try:
        return sa.create_engine(url, pool_pre_ping=True)
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError) as e:
        raise InputError(f"cannot use {url.render_as_string(hide_password=True)}: {e}") from None


P = ParamSpec("P")
R = TypeVar("R")


def _reachable(method: Callable[P, R]) -> Callable[P, R]:
    """A database that goes away while the app runs is a short message, not a traceback."""

    @functools.wraps(method)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except (sa.exc.OperationalError, sa.exc.InterfaceError) as e:
            raise StorageError(
                f"the sessions database cannot be reached ({str(e.orig).strip()[:200]}); "
                "nothing was stored: try again in a moment"
            ) from e

    return wrapped


class Store:
    """Sessions in one database; safe to share between Gradio's worker threads, and, with a
    server database, between app instances: a turn is stored once, and a save from a session
    that another instance has moved on is refused (StaleSessionError)."""

    def __init__(self, where: Path | str) -> None:
        self.url = database_url(where)
        self.path = Path(self.url.database or "") if self.is_sqlite else None
        self._db: sa.Engine | None = None
        self._init_lock = threading.Lock()
        # SQLite has one writer at a time anyway: the threads of this process queue here.
        self._lock: AbstractContextManager[Any] = (
            threading.Lock() if self.is_sqlite else nullcontext()
        )

    @classmethod
    def for_settings(cls, settings: Settings) -> Store:
        return cls(settings.database_url or settings.data_dir / "sessions.sqlite3")

    @property
    def is_sqlite(self) -> bool:
        return self.url.get_backend_name() == "sqlite"

    def __repr__(self) -> str:
        return f"Store({self.url.render_as_string(hide_password=True)!r})"

    def open(self) -> Store:
        """Connect and create the schema now (the app's start) rather than at first use."""
        self._engine()
        return self

    def _engine(self) -> sa.Engine:
        with self._init_lock:
            if self._db is None:
                db = _connect(self.url)
                try:
                    with db.begin() as c:
                        _create_schema(c)
                except sa.exc.OperationalError as e:
                    db.dispose()
                    where = self.url.render_as_string(hide_password=True)
                    raise InputError(f"cannot open the sessions database {where}: {e.orig}") from e
                self._db = db
        return self._db

    @_reachable
    def save(self, s: Session) -> None:
        """Upsert the session and every turn not yet stored (turns are append-only)."""
        state = {
            "plan": asdict(s.plan),
            "current": asdict(s.current) if s.current else None,
            "hints": s.hints,
            "followups_here": s.followups_here,
            "owner": s.owner,
            "seen_before": list(s.seen_before),
            "end_reason": s.end_reason,
        }
        row = {
            "updated_at": s.turns[-1].answered_at if s.turns else s.created_at,
            "status": s.status,
            "data": json.dumps(state),
            "owner": s.owner,
        }
        stale = StaleSessionError(
            "this interview was changed elsewhere (another answer was stored first): reload it"
        )
        try:
            with self._lock, self._engine().begin() as c:
                # Locks the session's row (PostgreSQL): saves of one session queue up.
                here = c.execute(
                    sa.select(SESSIONS.c.id).where(SESSIONS.c.id == s.id).with_for_update()
                ).first()
                stored = c.execute(
                    sa.select(sa.func.count()).where(TURNS.c.session_id == s.id)
                ).scalar_one()
                if stored > len(s.turns):
                    raise stale
                if stored:
                    last = c.execute(
                        sa.select(TURNS.c.data).where(
                            TURNS.c.session_id == s.id, TURNS.c.n == stored - 1
                        )
                    ).scalar_one()
                    if _mark(json.loads(last)) != _mark(turn_to_dict(s.turns[stored - 1])):
                        raise stale
                new = [
                    {"session_id": s.id, "n": n, "data": json.dumps(turn_to_dict(t))}
                    for n, t in enumerate(s.turns[stored:], stored)
                ]
                if new:
                    c.execute(sa.insert(TURNS), new)
                if here:
                    c.execute(sa.update(SESSIONS).where(SESSIONS.c.id == s.id).values(row))
                else:
                    c.execute(sa.insert(SESSIONS).values(id=s.id, created_at=s.created_at, **row))
        except sa.exc.IntegrityError as e:  # another instance stored the same turn first
            raise stale from e

    @_reachable
    def load(self, session_id: str) -> Session | None:
        with self._lock, self._engine().connect() as c:
            row = c.execute(
                sa.select(SESSIONS.c.created_at, SESSIONS.c.status, SESSIONS.c.data).where(
                    SESSIONS.c.id == session_id
                )
            ).first()
            if row is None:
                return None
            turns = [
                turn_from_dict(json.loads(d))
                for d in c.execute(
                    sa.select(TURNS.c.data)
                    .where(TURNS.c.session_id == session_id)
                    .order_by(TURNS.c.n)
                ).scalars()
            ]
        state = json.loads(row.data)
        plan = Plan(**(state["plan"] | {"topics": tuple(state["plan"]["topics"])}))
        current = Prompt(**state["current"]) if state["current"] else None
        return Session(
            session_id,
            plan,
            row.created_at,
            turns,
            current,
            state["hints"],
            state["followups_here"],
            row.status,
            state.get("owner", ""),
            tuple(state.get("seen_before", ())),
            state.get("end_reason", ""),
        )

    @_reachable
    def ids(self) -> list[str]:
        """Every session's id, oldest first."""
        with self._lock, self._engine().connect() as c:
            query = sa.select(SESSIONS.c.id).order_by(SESSIONS.c.created_at, SESSIONS.c.id)
            return list(c.execute(query).scalars())

    @_reachable
    def sessions(self, owner: str, limit: int = 50) -> list[dict[str, Any]]:
        """The sessions of one browser (owner), newest first."""
        with self._lock, self._engine().connect() as c:
            rows = c.execute(
                sa.select(SESSIONS.c.id, SESSIONS.c.created_at, SESSIONS.c.status)
                .where(SESSIONS.c.owner == owner)
                .order_by(SESSIONS.c.updated_at.desc(), SESSIONS.c.id)
                .limit(limit)
            ).all()
            turns = c.execute(
                sa.select(TURNS.c.session_id, TURNS.c.data).where(
                    TURNS.c.session_id.in_([r.id for r in rows])
                )
            ).all()
        counts: dict[str, int] = {}
        scores: dict[str, list[float]] = {}
        for sid, data in turns:
            counts[sid] = counts.get(sid, 0) + 1
            grade = json.loads(data)["grade"]
            if grade is not None:
                scores.setdefault(sid, []).append(grade["score"])
        return [
            {
                "id": r.id,
                "created_at": r.created_at,
                "status": r.status,
                "turns": counts.get(r.id, 0),
                "mean_score": round(sum(v) / len(v), 2) if (v := scores.get(r.id)) else None,
            }
            for r in rows
        ]

    def _owner_turns(self, owner: str) -> list[dict[str, Any]]:
        """Every stored turn of one browser's sessions, session by session, in order."""
        with self._lock, self._engine().connect() as c:
            rows = c.execute(
                sa.select(TURNS.c.data)
                .join(SESSIONS, SESSIONS.c.id == TURNS.c.session_id)
                .where(SESSIONS.c.owner == owner)
                .order_by(SESSIONS.c.created_at, TURNS.c.session_id, TURNS.c.n)
            ).scalars()
            return [json.loads(d) for d in rows]

    @_reachable
    def asked_before(self, owner: str) -> tuple[str, ...]:
        """Every question id this browser was asked in its sessions."""
        ids = (d["prompt"]["question_id"] for d in self._owner_turns(owner))
        return tuple(dict.fromkeys(q for q in ids if q))

    def close(self) -> None:
        with self._init_lock:
            if self._db is not None:
                self._db.dispose()
                self._db = None


def _create_schema(c: sa.Connection) -> None:
    """The tables, once; a file written before `owner` had its column gets it, filled in."""
    if c.dialect.name == "postgresql":  # two instances starting at once: one creates it
        c.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
    metadata.create_all(c)
    if "owner" not in {col["name"] for col in sa.inspect(c).get_columns("sessions")}:
        c.execute(sa.text("ALTER TABLE sessions ADD COLUMN owner TEXT NOT NULL DEFAULT ''"))
        for sid, data in c.execute(sa.select(SESSIONS.c.id, SESSIONS.c.data)).all():
            owner = json.loads(data).get("owner", "")
            c.execute(sa.update(SESSIONS).where(SESSIONS.c.id == sid).values(owner=owner))
    OWNER_INDEX.create(c, checkfirst=True)


@dataclass
class Migrated:
    copied: int = 0  # sessions the target lacked
    extended: int = 0  # sessions the target had with fewer turns: the rest appended
    present: int = 0  # already there with every turn (a second run: all of them)
    conflicts: list[str] = field(default_factory=list)  # changed in the target since: kept


def migrate(source: Store, target: Store) -> Migrated:
    """Copy the sessions of `source` (e.g. the SQLite file) into `target` (e.g. PostgreSQL).
    Idempotent: a session already in the target is left as it is, or only has the turns it
    lacks appended; one that went on differently there is kept and reported."""
    done = Migrated()
    for sid in source.ids():
        session = source.load(sid)
        if session is None:
            continue
        there = target.load(sid)
        if there is not None:
            mine, theirs = ([_mark(turn_to_dict(t)) for t in x.turns] for x in (session, there))
            common = min(len(mine), len(theirs))
            if mine[:common] != theirs[:common]:
                done.conflicts.append(sid)
                continue
            if len(theirs) >= len(mine):
                done.present += 1
                continue
        try:
            target.save(session)
        except StaleSessionError:
            done.conflicts.append(sid)
            continue
        if there is None:
            done.copied += 1
        else:
            done.extended += 1
    return done
