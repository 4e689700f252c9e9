"""Against a real vLLM server process: `bash vllm_cpu/serve.sh start`, then set
INTERVIEWER_TEST_VLLM_URL=http://127.0.0.1:8011/v1 (CI does not run these; see README).

The CPU model is Gemma 3 270M, a base model: these tests prove the plumbing (structured output
parses and validates, streaming, batch resume after the server dies), never grading accuracy.
They skip, saying why, when no server could be started on this machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from interviewer.config import Settings
from interviewer.errors import LLMError
from interviewer.grade import Reference, ReferenceSet
from interviewer.grader import LLMGrader
from interviewer.llm import OpenAICompatible, ping

URL = os.environ.get("INTERVIEWER_TEST_VLLM_URL", "")
REPO = Path(__file__).resolve().parent.parent
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not URL,
        reason="no vLLM server: run `bash vllm_cpu/serve.sh start` and set "
        "INTERVIEWER_TEST_VLLM_URL",
    ),
]
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


def settings(**over) -> Settings:
    opts = {
        "llm_base_url": URL,
        "llm_model": "gemma3-270m",
        "llm_max_tokens": 400,
        "llm_timeout_s": 180.0,
        "llm_max_retries": 1,
    } | over
    return Settings(**opts)


def test_a_real_vllm_server_answers_and_a_runaway_reply_is_a_clear_error():
    # Gemma 3 270M (base) fills every capped field of the schema and reaches max_tokens before
    # closing the JSON; the grader must say so plainly instead of returning a guess.
    s = settings(llm_max_tokens=120, llm_max_retries=0)
    assert ping(s) is None
    with pytest.raises(LLMError, match="length limit"):
        LLMGrader(OpenAICompatible(s), s).grade(REFS.question, "Stacked memory.", REFS)


def test_streaming_from_a_real_vllm_server():
    pieces = list(
        OpenAICompatible(settings()).stream(
            [{"role": "user", "content": "Name one GPU memory type."}], 12
        )
    )
    assert len(pieces) >= 2 and "".join(pieces)  # chunks arrive one by one (any text)


def test_batch_survives_the_server_dying_and_resumes(tmp_path):
    rows = [
        {
            "id": f"r{i}",
            "question": "What is HBM?",
            "answer": f"Stacked memory {i}.",
            "reference_answer": "HBM is 3D-stacked memory with massive bandwidth.",
        }
        for i in range(3)
    ]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    env = os.environ | {
        "INTERVIEWER_LLM_BASE_URL": URL,
        "INTERVIEWER_LLM_MODEL": "gemma3-270m",
        "INTERVIEWER_LLM_MAX_TOKENS": "120",
        "INTERVIEWER_LLM_MAX_RETRIES": "0",
        "INTERVIEWER_LLM_TIMEOUT_S": "180",
        "INTERVIEWER_DATA_DIR": str(tmp_path / "d"),
    }
    cmd = [
        sys.executable,
        "-m",
        "interviewer.cli",
        "grade",
        str(src),
        "-o",
        str(out),
        "--grader",
        "llm",
        "--concurrency",
        "1",
        "-q",
    ]
    serve = ["bash", str(REPO / "vllm_cpu" / "serve.sh")]
    subprocess.run([*serve, "stop"], check=True)  # the server dies before the batch
    down = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert down.returncode == 1
    errors = (tmp_path / "out.jsonl.errors.jsonl").read_text().splitlines()
    assert len(errors) == 3 and all("failed" in json.loads(e)["reason"] for e in errors)
    subprocess.run([*serve, "start"], check=True, timeout=600)  # back up: resume the batch
    up = subprocess.run([*cmd, "--resume"], env=env, capture_output=True, text=True, timeout=900)
    graded = [json.loads(x) for x in out.read_text().splitlines() if x.strip()]
    failed = [json.loads(x) for x in (tmp_path / "out.jsonl.errors.jsonl").read_text().splitlines()]
    # Every row was retried against the live server: graded, or failed again with its reason
    # (this model runs into max_tokens), never lost and never duplicated.
    assert sorted([g["id"] for g in graded] + [f["id"] for f in failed]) == ["r0", "r1", "r2"]
    assert all("length limit" in f["reason"] for f in failed), up.stderr
