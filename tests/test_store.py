"""The session store against both of its databases: a SQLite file, and a real PostgreSQL server
started here (initdb in a temp dir, a unix socket only), as several app instances share it."""

from __future__ import annotations

import glob
import itertools
import json
import os
import pwd
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from interviewer.config import Settings
from interviewer.delivery import Spoken
from interviewer.errors import InputError, StaleSessionError
from interviewer.records import ClaimResult, Grade, Provenance, Reference
from interviewer.session import Plan, Prompt, Session, Turn
from interviewer.store import Store, migrate


def _pg_bin() -> Path | None:
    """The newest installed PostgreSQL's server binaries (Debian's layout, or on the PATH)."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3])
    )
    initdb = found[-1] if found else shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@pytest.fixture(scope="session")
def postgres() -> Iterator[dict[str, Any]]:
    """A throwaway PostgreSQL cluster for the whole test session; stopped and removed after.
    PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user (or
    `nobody`) in a temp dir it owns."""
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("no PostgreSQL server binaries (initdb): `make system-deps` installs them")
    as_user: dict[str, Any] = {}
    root = tempfile.mkdtemp(prefix="interviewer-pg-")  # short: a socket path has a length limit
    if os.geteuid() == 0:
        name = "postgres" if "postgres" in {u.pw_name for u in pwd.getpwall()} else "nobody"
        user = pwd.getpwnam(name)
        os.chown(root, user.pw_uid, user.pw_gid)
        as_user = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
    data = Path(root) / "data"
    with socket.socket() as s:  # a free port: it also names the socket file
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    def run(*cmd: str) -> None:
        subprocess.run(cmd, check=True, capture_output=True, cwd=root, timeout=60, **as_user)

    options = f"-k {root} -p {port} -c listen_addresses='' -c fsync=off -c full_page_writes=off"
    run(str(bindir / "initdb"), "-D", str(data), "-U", "interviewer", "--auth=trust")
    run(str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", f"{root}/log", "-w", "start")
    try:
        yield {"bin": bindir, "host": root, "port": port, "names": itertools.count()}
    finally:
        run(str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop")
        shutil.rmtree(root, ignore_errors=True)


def _new_pg_database(pg: dict[str, Any]) -> str:
    import psycopg

    name = f"sessions_{next(pg['names'])}"
    dsn = f"host={pg['host']} port={pg['port']} user=interviewer dbname=postgres"
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute(f"CREATE DATABASE {name}")
    return f"postgresql+psycopg://interviewer@/{name}?host={pg['host']}&port={pg['port']}"


@pytest.fixture(params=["sqlite", "postgresql"])
def where(request, tmp_path) -> Path | str:
    """Where one test's sessions go: a fresh SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return tmp_path / "sessions.sqlite3"
    return _new_pg_database(request.getfixturevalue("postgres"))


@pytest.fixture()
def opened(where) -> Iterator[Any]:
    """Opens a Store (on `where`, or another place) as an app instance would; all closed after."""
    stores: list[Store] = []

    def open_store(at: Path | str | None = None) -> Store:
        stores.append(Store(where if at is None else at))
        return stores[-1]

    yield open_store
    for store in stores:
        store.close()


def grade(score: int) -> Grade:
    return Grade(
        score,
        ("bandwidth",),
        ("cost",),
        (),
        "Good.",
        ("q1",),
        (),
        0.8,
        Provenance("offline", "test", settings={"k": 3}),
        expected_score=score + 0.25,
        references=(Reference("q1", "bank", "HBM is stacked.", ("stacked",), "guide", 0.9),),
        claims=(ClaimResult("HBM is stacked.", "covered", "stacking", evidence="stacked"),),
    )


def turn(qid: str, at: float, score: int | None, answer: str = "an answer") -> Turn:
    prompt = Prompt(qid, f"What is {qid}?", "question", "easy", asked_at=at - 5)
    return Turn(prompt, answer, grade(score) if score is not None else None, at)


def session(sid: str, owner: str, at: float, turns: list[Turn] | None = None) -> Session:
    s = Session(sid, Plan(("memory",), "easy", 3, "deep dive"), at, owner=owner)
    s.turns = list(turns or [])
    s.current = Prompt("next", "What next?", "question", "easy", asked_at=at + 100)
    return s


def test_a_session_round_trips_with_every_field(opened):
    s = session("s1", "alice", 100.0, [turn("hbm", 110.0, 4), turn("smem", 120.0, None)])
    s.turns.append(
        Turn(
            s.turns[0].prompt, "spoken", grade(2), 130.0, hints=1, late=True, spoken=Spoken(9, 0.7)
        )
    )
    s.hints, s.followups_here, s.seen_before, s.end_reason = 1, 2, ("old",), "time"
    store = opened()
    store.save(s)
    store.close()
    again = opened().load("s1")
    assert again == s
    assert opened().load("missing") is None


def test_nothing_is_opened_until_first_use(tmp_path):
    Store(tmp_path / "not" / "yet.sqlite3")
    unreachable = Store("postgresql+psycopg://nobody:secret@/nowhere?host=/nonexistent")
    assert not (tmp_path / "not").exists()
    with pytest.raises(InputError, match="cannot open the sessions database") as e:
        unreachable.open()
    assert "secret" not in str(e.value) and "secret" not in repr(unreachable)
    settings = Settings(data_dir=tmp_path, database_url="")
    assert Store.for_settings(settings).path == tmp_path / "sessions.sqlite3"


def test_turns_are_appended_across_two_app_instances(opened):
    a, b = opened(), opened()
    a.save(session("s1", "alice", 100.0, [turn("hbm", 110.0, 3)]))
    s = b.load("s1")
    assert s is not None
    s.turns.append(turn("smem", 120.0, 5))
    s.status = "ended"
    b.save(s)
    b.save(s)  # saved again: nothing doubles
    seen = a.load("s1")
    assert seen is not None and [t.prompt.question_id for t in seen.turns] == ["hbm", "smem"]
    assert seen.status == "ended"
    stale = session("s1", "alice", 100.0, [turn("hbm", 110.0, 3)])  # a's copy from before
    with pytest.raises(StaleSessionError, match="changed elsewhere"):
        a.save(stale)
    other = session("s1", "alice", 100.0, [turn("hbm", 110.0, 3), turn("other", 121.0, 1)])
    with pytest.raises(StaleSessionError):  # a different second answer
        a.save(other)
    assert len(a.load("s1").turns) == 2  # type: ignore[union-attr]


def _save_at_once(saves: list[tuple[Store, Session]]) -> list[str]:
    """Each (store, session) saved in its own thread, released together: stored or refused."""
    start = threading.Barrier(len(saves))
    outcomes: list[str] = []

    def save(store: Store, s: Session) -> None:
        start.wait()
        try:
            store.save(s)
            outcomes.append("stored")
        except StaleSessionError:
            outcomes.append("refused")

    threads = [threading.Thread(target=save, args=pair) for pair in saves]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return sorted(outcomes)


def test_a_duplicate_turn_written_at_once_by_two_instances_is_stored_once(opened):
    stores = [opened(), opened()]
    stores[0].save(session("s1", "alice", 100.0))
    for n in range(3):
        saves = []
        for i, store in enumerate(stores):
            s = store.load("s1")
            assert s is not None
            s.turns.append(turn(f"q{n}", 200.0 + n, 3, f"answer {i}"))
            saves.append((store, s))
        assert _save_at_once(saves) == ["refused", "stored"]
        assert len(stores[1].load("s1").turns) == n + 1  # type: ignore[union-attr]


def test_sessions_are_listed_per_owner_newest_first(opened):
    store = opened()
    store.save(session("old", "alice", 100.0, [turn("hbm", 110.0, 4), turn("x", 111.0, 1)]))
    store.save(session("new", "alice", 200.0, [turn("smem", 210.0, None)]))
    store.save(session("bob1", "bob", 300.0))
    listed = store.sessions("alice")
    assert [r["id"] for r in listed] == ["new", "old"]
    assert listed[1] == {
        "id": "old",
        "created_at": 100.0,
        "status": "active",
        "turns": 2,
        "mean_score": 2.5,
    }
    assert listed[0]["turns"] == 1 and listed[0]["mean_score"] is None
    assert [r["id"] for r in store.sessions("alice", limit=1)] == ["new"]
    assert [r["id"] for r in store.sessions("bob")] == ["bob1"]
    assert store.sessions("carol") == []


def test_asked_before_of_one_owner(opened):
    store = opened()
    store.save(session("a1", "alice", 100.0, [turn("hbm", 150.0, 4), turn("smem", 110.0, None)]))
    store.save(session("a2", "alice", 200.0, [turn("hbm", 120.0, 2), turn("warp", 210.0, 5)]))
    store.save(session("b1", "bob", 50.0, [turn("nccl", 60.0, 3)]))
    assert store.asked_before("alice") == ("hbm", "smem", "warp")
    assert store.asked_before("bob") == ("nccl",)
    assert store.asked_before("carol") == ()


OLD_SCHEMA = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, created_at REAL NOT NULL, updated_at REAL NOT NULL,
    status TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE turns (session_id TEXT NOT NULL, n INTEGER NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (session_id, n));
"""


def _old_file(path: Path, sessions: list[Session]) -> None:
    """A sessions file as the store wrote it before `owner` had a column (owner in the JSON)."""
    from interviewer.store import turn_to_dict

    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path)) as db, db:
        db.executescript(OLD_SCHEMA)
        for s in sessions:
            state = {"plan": {"topics": list(s.plan.topics), "difficulty": "easy", "length": 3}}
            state["plan"] |= {"mode": s.plan.mode}
            state |= {"current": None, "hints": 0, "followups_here": 0, "owner": s.owner}
            db.execute(
                "INSERT INTO sessions VALUES (?,?,?,?,?)",
                (s.id, s.created_at, s.created_at, s.status, json.dumps(state)),
            )
            for n, t in enumerate(s.turns):
                db.execute(
                    "INSERT INTO turns VALUES (?,?,?)", (s.id, n, json.dumps(turn_to_dict(t)))
                )


def test_a_file_written_before_the_owner_column_still_loads(tmp_path, opened):
    path = tmp_path / "sessions.sqlite3"
    _old_file(path, [session("s1", "alice", 100.0, [turn("hbm", 110.0, 4)])])
    store = opened(path)
    assert [r["id"] for r in store.sessions("alice")] == ["s1"]
    loaded = store.load("s1")
    assert loaded is not None and loaded.owner == "alice" and loaded.current is None
    loaded.turns.append(turn("smem", 120.0, 2))
    store.save(loaded)
    assert store.asked_before("alice") == ("hbm", "smem")


def test_migrating_sqlite_sessions_copies_them_once(opened, tmp_path):
    source = tmp_path / "old.sqlite3"
    sessions = [
        session("s1", "alice", 100.0, [turn("hbm", 110.0, 4), turn("smem", 120.0, None)]),
        session("s2", "bob", 200.0),
    ]
    _old_file(source, sessions)
    target = opened()
    target.save(session("s3", "carol", 300.0, [turn("warp", 310.0, 1)]))  # already in use
    first = migrate(opened(source), target)
    assert (first.copied, first.extended, first.present, first.conflicts) == (2, 0, 0, [])
    again = migrate(opened(source), opened())
    assert (again.copied, again.extended, again.present, again.conflicts) == (0, 0, 2, [])
    assert opened().load("s1") == opened(source).load("s1")
    assert [r["turns"] for r in opened().sessions("alice")] == [2]
    assert opened().ids() == ["s1", "s2", "s3"]
    # Answered again in the old file: the new turn follows; a session that went on
    # differently in the target is kept as it is there.
    old = opened(source)
    s1 = old.load("s1")
    assert s1 is not None
    s1.turns.append(turn("warp", 130.0, 3))
    old.save(s1)
    s2 = target.load("s2")
    assert s2 is not None
    s2.turns.append(turn("nccl", 210.0, 2))
    target.save(s2)
    s2_old = old.load("s2")
    assert s2_old is not None
    s2_old.turns.append(turn("other", 220.0, 2))
    old.save(s2_old)
    third = migrate(old, opened())
    assert (third.copied, third.extended, third.present, third.conflicts) == (0, 1, 0, ["s2"])
    assert len(opened().load("s1").turns) == 3  # type: ignore[union-attr]
    assert opened().load("s2").turns[0].prompt.question_id == "nccl"  # type: ignore[union-attr]


def test_the_migrate_command_copies_the_data_dirs_sessions(
    where, opened, tmp_path, capsys, monkeypatch
):
    from interviewer.cli import main

    monkeypatch.setenv("INTERVIEWER_DATABASE_URL", str(where))
    data = ["--data-dir", str(tmp_path / "data")]
    assert main([*data, "sessions", "migrate"]) == 2
    assert "no sessions to migrate" in capsys.readouterr().err
    _old_file(tmp_path / "data" / "sessions.sqlite3", [session("s1", "alice", 100.0)])
    argv = [*data, "sessions", "migrate"]
    if isinstance(where, Path):  # a SQLite target: named as a URL
        argv += ["--to", f"sqlite:///{where}"]
    for _ in range(2):
        assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert "1 sessions copied" in out[0] and "1 already there" in out[1]
    assert [r["id"] for r in opened().sessions("alice")] == ["s1"]


def test_a_database_gone_while_the_app_runs_is_a_short_error(postgres):
    import psycopg

    from interviewer.errors import StorageError

    url = _new_pg_database(postgres)
    store = Store(url).open()
    store.save(session("s1", "alice", 100.0))
    name = url.split("@/")[1].split("?")[0]
    dsn = f"host={postgres['host']} port={postgres['port']} user=interviewer dbname=postgres"
    with psycopg.connect(dsn, autocommit=True) as c:  # the database goes away under the app
        c.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        c.execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname='{name}'")
    for call in (lambda: store.load("s1"), lambda: store.save(session("s2", "bob", 200.0))):
        with pytest.raises(StorageError, match=r"cannot be reached.*nothing was stored"):
            call()
    store.close()
