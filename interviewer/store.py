"""Sessions and turns in SQLite under the data dir, written as they happen."""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .delivery import Spoken
from .grade import Grade
from .session import Plan, Prompt, Session, Turn

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, created_at REAL NOT NULL, updated_at REAL NOT NULL,
    status TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS turns (
    session_id TEXT NOT NULL, n INTEGER NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (session_id, n));
"""


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


class Store:
    """One SQLite file; safe to share between Gradio's worker threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(SCHEMA)
        return self._db

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
        with self._lock:
            db = self._conn()
            db.execute("BEGIN")
            stored = db.execute(
                "SELECT COUNT(*) FROM turns WHERE session_id=?", (s.id,)
            ).fetchone()[0]
            for n, turn in enumerate(s.turns[stored:], stored):
                db.execute(
                    "INSERT INTO turns VALUES (?,?,?)", (s.id, n, json.dumps(turn_to_dict(turn)))
                )
            updated = s.turns[-1].answered_at if s.turns else s.created_at
            db.execute(
                "INSERT INTO sessions VALUES (?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET "
                "updated_at=excluded.updated_at, status=excluded.status, "
                "data=excluded.data",
                (s.id, s.created_at, updated, s.status, json.dumps(state)),
            )
            db.execute("COMMIT")

    def load(self, session_id: str) -> Session | None:
        with self._lock:
            db = self._conn()
            row = db.execute(
                "SELECT created_at, status, data FROM sessions WHERE id=?", (session_id,)
            ).fetchone()
            if row is None:
                return None
            turns = [
                turn_from_dict(json.loads(d))
                for (d,) in db.execute(
                    "SELECT data FROM turns WHERE session_id=? ORDER BY n", (session_id,)
                )
            ]
        state = json.loads(row[2])
        plan = Plan(**(state["plan"] | {"topics": tuple(state["plan"]["topics"])}))
        current = Prompt(**state["current"]) if state["current"] else None
        return Session(
            session_id,
            plan,
            row[0],
            turns,
            current,
            state["hints"],
            state["followups_here"],
            row[1],
            state.get("owner", ""),
            tuple(state.get("seen_before", ())),
            state.get("end_reason", ""),
        )

    def sessions(self, owner: str, limit: int = 50) -> list[dict[str, Any]]:
        """The sessions of one browser (owner), newest first."""
        with self._lock:
            rows = (
                self._conn()
                .execute(
                    "SELECT s.id, s.created_at, s.status, COUNT(t.n), "
                    "AVG(json_extract(t.data, '$.grade.score')) FROM sessions s LEFT JOIN turns t "
                    "ON t.session_id = s.id WHERE json_extract(s.data, '$.owner') = ? "
                    "GROUP BY s.id ORDER BY s.updated_at DESC LIMIT ?",
                    (owner, limit),
                )
                .fetchall()
            )
        return [
            {
                "id": r[0],
                "created_at": r[1],
                "status": r[2],
                "turns": r[3],
                "mean_score": round(r[4], 2) if r[4] is not None else None,
            }
            for r in rows
        ]

    def asked_before(self, owner: str) -> tuple[str, ...]:
        """Every question id this browser was asked in its sessions."""
        with self._lock:
            rows = (
                self._conn()
                .execute(
                    "SELECT DISTINCT json_extract(t.data, '$.prompt.question_id') FROM turns t "
                    "JOIN sessions s ON s.id = t.session_id "
                    "WHERE json_extract(s.data, '$.owner') = ?",
                    (owner,),
                )
                .fetchall()
            )
        return tuple(r[0] for r in rows if r[0])

    def topic_scores(self, owner: str) -> list[tuple[str, float]]:
        """(question_id, score) for every graded turn of one browser's sessions."""
        with self._lock:
            rows = (
                self._conn()
                .execute(
                    "SELECT json_extract(t.data, '$.prompt.question_id'), "
                    "json_extract(t.data, '$.grade.score') FROM turns t JOIN sessions s "
                    "ON s.id = t.session_id WHERE json_extract(t.data, '$.grade') IS NOT NULL "
                    "AND json_extract(s.data, '$.owner') = ?",
                    (owner,),
                )
                .fetchall()
            )
        return [(r[0], float(r[1])) for r in rows]

    def graded_turns(self, owner: str) -> list[Turn]:
        """Every graded turn of one browser's sessions, oldest first (progress and review)."""
        with self._lock:
            rows = (
                self._conn()
                .execute(
                    "SELECT t.data FROM turns t JOIN sessions s ON s.id = t.session_id "
                    "WHERE json_extract(t.data, '$.grade') IS NOT NULL "
                    "AND json_extract(s.data, '$.owner') = ? "
                    "ORDER BY json_extract(t.data, '$.answered_at')",
                    (owner,),
                )
                .fetchall()
            )
        return [turn_from_dict(json.loads(d)) for (d,) in rows]

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
