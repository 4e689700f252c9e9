"""Against a real vLLM server process on the CPU (vllm_cpu/serve.sh): `make test` starts one
(INTERVIEWER_TEST_VLLM=start); or point INTERVIEWER_TEST_VLLM_URL at a running server.

The CPU model is Gemma 3 270M, a base model: these tests prove the plumbing (structured output
parses and validates, streaming, an interview turn, batch resume after the server was down, the
in-process engine), never grading accuracy: its grades are nonsense and are never reported.
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from interviewer.config import Settings
from interviewer.errors import LLMError
from interviewer.followups import LLMFollowUps
from interviewer.grader import make_grader
from interviewer.interview import Engine
from interviewer.llm import OpenAICompatible, ping
from interviewer.llm_grader import LLMGrader
from interviewer.records import Reference, ReferenceSet
from interviewer.session import Plan

REPO = Path(__file__).resolve().parent.parent
SERVE = ["bash", str(REPO / "vllm_cpu" / "serve.sh")]
OWN_URL = f"http://127.0.0.1:{os.environ.get('INTERVIEWER_VLLM_PORT', '8011')}/v1"
MODEL_DIR = REPO / ".data" / "vllm-model" / "gemma3-270m"
VLLM_PYTHON = REPO / ".venv-vllm" / "bin" / "python"
LLM_FIELDS = {"llm_base_url", "llm_model", "llm_max_tokens", "llm_timeout_s", "llm_max_retries"}
MAX_TOKENS = 256  # small: the caps (or, for many key points, the request) still fit it
pytestmark = pytest.mark.slow
REFS = ReferenceSet(
    "What is HBM?",
    (
        Reference(
            "input",
            "input",
            "HBM is 3D-stacked memory with massive bandwidth.",
            ("HBM is 3D-stacked memory with massive bandwidth.",),
        ),
    ),
)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    if given := os.environ.get("INTERVIEWER_TEST_VLLM_URL"):
        yield given
        return
    if os.environ.get("INTERVIEWER_TEST_VLLM") != "start":
        pytest.skip("no vLLM server: `make test` starts one, or set INTERVIEWER_TEST_VLLM_URL")
    subprocess.run([*SERVE, "start"], check=True, timeout=1500)
    yield OWN_URL
    subprocess.run([*SERVE, "stop"], check=False)


def settings(url: str, **over) -> Settings:
    opts = {
        "llm_base_url": url,
        "llm_model": "gemma3-270m",
        "llm_max_tokens": MAX_TOKENS,
        "llm_timeout_s": 300.0,
        "llm_max_retries": 1,
    } | over
    return Settings(**opts)


def test_a_structured_grade_from_a_real_vllm_server_parses_and_validates(url):
    s = settings(url)
    assert ping(s) is None
    g = LLMGrader(OpenAICompatible(s), s).grade(REFS.question, "Stacked DRAM, wide bus.", REFS)
    assert g.provenance.grader == "llm" and g.provenance.decided_by == "model"
    assert g.provenance.model == "gemma3-270m" and g.provenance.prompt_version == "grade_v3"
    assert len(g.claims) == 1 and g.claims[0].verdict in ("covered", "contradicted", "missed")
    assert set(g.reference_ids) <= {"input"} and g.references == REFS.references


def test_a_reply_cut_off_at_max_tokens_is_a_clear_error(url):
    # An unbounded integer under constrained decoding: this model emits digits until the limit.
    chat = OpenAICompatible(settings(url, llm_max_retries=0))
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    with pytest.raises(LLMError, match="length limit"):
        chat.complete_json([{"role": "user", "content": "A big number:"}], schema, 16)


def test_streaming_from_a_real_vllm_server(url):
    chat = OpenAICompatible(settings(url))
    pieces = list(chat.stream([{"role": "user", "content": "Name one GPU memory type."}], 12))
    assert len(pieces) >= 2 and "".join(pieces)  # chunks arrive one by one (any text)
    assert chat.output_tokens > 0  # usage is counted for the benchmark


def test_one_interview_turn_with_the_llm_grader_and_llm_follow_ups(url, built_index):
    base, index = built_index
    s = base.model_copy(update=settings(url).model_dump(include=LLM_FIELDS) | {"grader": "llm"})
    engine = Engine(
        index.bank,
        make_grader("llm", s, index=index),
        index,
        s,
        lambda: 1000.0,
        random.Random(3),
        LLMFollowUps(OpenAICompatible(s), 40),
    )
    session = engine.start(Plan(("memory",), "easy", 2))
    shown: list[str] = []
    out = engine.answer(session, "It is stacked memory with a wide bus.", on_text=shown.append)
    grade = out.turn.grade
    assert grade.provenance.grader == "llm" and grade.provenance.model == "gemma3-270m"
    assert grade.references  # Gemma 3 270M's score itself means nothing: not asserted
    assert out.next is not None  # a follow-up or the next question, whatever the score
    if out.decision == "follow-up" and out.next.writer == "llm":
        assert shown and shown[-1].split() == out.next.text.split()  # streamed as it came


def test_in_process_engine_grades_a_batch_through_vllm_llm(url, tmp_path):
    if not VLLM_PYTHON.exists():  # made by the `url` fixture's serve.sh, unless a URL was given
        pytest.skip("no .venv-vllm: run `bash vllm_cpu/serve.sh setup`")
    # The vLLM venv cannot hold the app's pins; the package runs from the checkout there.
    ref = REFS.references[0].text
    rows = [
        {"id": key, "question": REFS.question, "answer": answer, "reference_answer": ref}
        for key, answer in [("a", "Stacked DRAM."), ("b", "I don't know")]
    ]
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = os.environ | {
        "PYTHONPATH": str(REPO),
        "INTERVIEWER_DATA_DIR": str(tmp_path / "d"),
        "INTERVIEWER_LLM_MODEL": str(MODEL_DIR),
        "INTERVIEWER_LLM_CHAT_TEMPLATE": str(REPO / "vllm_cpu" / "chat_template.jinja"),
        "INTERVIEWER_LLM_MAX_TOKENS": str(MAX_TOKENS),
        "INTERVIEWER_VLLM_MAX_MODEL_LEN": "4096",
        "VLLM_CPU_KVCACHE_SPACE": "1",
    }
    cmd = [str(VLLM_PYTHON), "-m", "interviewer.cli", "grade", str(src), "-o", str(out)]
    cmd += ["--grader", "llm", "--engine", "inprocess", "-q"]
    refused = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and "no GPU" in refused.stderr and not out.exists()
    env["INTERVIEWER_VLLM_ALLOW_CPU"] = "1"
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    graded = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert graded["a"]["grader"] == "llm" and graded["a"]["decided_by"] == "model"
    assert graded["a"]["model"] == str(MODEL_DIR)
    assert graded["b"]["decided_by"] == "rule:non_answer" and graded["b"]["score"] == 0


def test_batch_survives_the_server_being_down_and_resumes(url, tmp_path):
    rows = [
        {
            "id": f"r{i}",
            "question": "What is HBM?",
            "answer": f"Stacked memory {i}.",
            "reference_answer": "HBM is 3D-stacked memory with massive bandwidth.",
        }
        for i in range(2)
    ]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    env = os.environ | {
        "INTERVIEWER_LLM_MODEL": "gemma3-270m",
        "INTERVIEWER_LLM_MAX_TOKENS": str(MAX_TOKENS),
        "INTERVIEWER_LLM_MAX_RETRIES": "0",
        "INTERVIEWER_LLM_TIMEOUT_S": "300",
        "INTERVIEWER_DATA_DIR": str(tmp_path / "d"),
    }
    cmd = [sys.executable, "-m", "interviewer.cli", "grade", str(src), "-o", str(out)]
    cmd += ["--grader", "llm", "--concurrency", "2", "-q"]
    # The server is down (nothing listens on its port): every row fails with a clear error.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    down = subprocess.run(
        cmd,
        env=env | {"INTERVIEWER_LLM_BASE_URL": dead},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert down.returncode == 1
    errors = (tmp_path / "out.jsonl.errors.jsonl").read_text().splitlines()
    assert len(errors) == 2 and all("failed" in json.loads(e)["reason"] for e in errors)
    # The server is up: --resume grades exactly the rows that failed.
    up = subprocess.run(
        [*cmd, "--resume"],
        env=env | {"INTERVIEWER_LLM_BASE_URL": url},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert up.returncode == 0, up.stderr[-2000:]
    graded = [json.loads(x) for x in out.read_text().splitlines() if x.strip()]
    assert sorted(g["id"] for g in graded) == ["r0", "r1"]  # none lost, none twice
    assert all(g["grader"] == "llm" and g["decided_by"] == "model" for g in graded)
    assert (tmp_path / "out.jsonl.errors.jsonl").read_text() == ""


def test_ray_actors_grade_through_the_real_vllm_server(url, tmp_path):
    """`--engine ray` with the LLM grader: Ray actors send the requests to the real vLLM server
    (issue 17's HTTP stage), and every row comes back once, labelled as the LLM's grade."""
    pytest.importorskip("ray", reason="ray is not installed (pip install 'interviewer[ray]')")
    rows = [
        {"id": f"r{i}", "question": "What is HBM?", "answer": f"Stacked memory, {i} of them."}
        | {"reference_answer": "HBM is 3D-stacked memory with massive bandwidth."}
        for i in range(2)
    ]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    env = os.environ | {
        "INTERVIEWER_LLM_BASE_URL": url,
        "INTERVIEWER_LLM_MODEL": "gemma3-270m",
        "INTERVIEWER_LLM_MAX_TOKENS": str(MAX_TOKENS),
        "INTERVIEWER_LLM_TIMEOUT_S": "300",
        "INTERVIEWER_DATA_DIR": str(tmp_path / "d"),
    }
    cmd = [sys.executable, "-m", "interviewer.cli", "grade", str(src), "-o", str(out), "-q"]
    cmd += ["--grader", "llm", "--engine", "ray", "--concurrency", "2"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    graded = [json.loads(x) for x in out.read_text().splitlines()]
    failed = Path(f"{out}.errors.jsonl")
    errors = failed.read_text().splitlines() if failed.exists() else []
    # A base model may write a reply that fails validation twice: that row is then an error
    # with its reason, never lost; every row is accounted for exactly once.
    assert sorted([g["id"] for g in graded] + [json.loads(e)["id"] for e in errors]) == ["r0", "r1"]
    assert all(g["grader"] == "llm" and g["model"] == "gemma3-270m" for g in graded)
    assert done.returncode == (1 if errors else 0), done.stderr[-2000:]
