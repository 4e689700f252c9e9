"""`interviewer grade --engine ray`: the same grades, errors and resume as the default engine,
on a local Ray (one for the whole module, 2 CPUs: two grading actors)."""

from __future__ import annotations

import importlib.util
import json
import os
import time
from pathlib import Path

import pytest

from interviewer.cli import main
from tests.fake_llm import FakeLLM, first_point_covered
from tests.test_batch import REF, rows, write_jsonl

needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason="ray is not installed (pip install 'interviewer[ray]')",
)

# Ray Data 2.60's DataContext warns about its deprecated fields (use_push_based_shuffle,
# use_polars, ...) whenever one is set, its own constructor included, so every use of Ray Data
# warns about settings we never touch: ignored from that module only.
pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.data.context"),
    pytest.mark.slow,
]

BAD = [
    "{not json",  # line 4
    json.dumps({"id": "noq", "answer": "no question field"}),  # line 9
    json.dumps({"id": "long", "question": "What is NCCL?", "answer": "x" * 9000}),  # line 14
    json.dumps({"id": "r3", "question": "What is NCCL?", "answer": "the same id again"}),
]


def mixed_input(tmp_path: Path) -> tuple[Path, list[str]]:
    """30 lines: 26 valid rows with bad rows at lines 4, 9, 14 and 19."""
    good = rows(26)
    lines: list = list(good)
    for at, bad in zip((3, 8, 13, 18), BAD, strict=True):
        lines.insert(at, bad)
    return write_jsonl(tmp_path / "in.jsonl", lines), [r["id"] for r in good]


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def grade(settings, src: Path, out: Path, *extra: str) -> int:
    return main(
        ["--data-dir", str(settings.data_dir), "grade", str(src), "-o", str(out), "-q", *extra]
    )


def by_id(out: Path) -> dict[str, dict]:
    got: dict[str, dict] = {}
    for line in out.read_text("utf-8").splitlines():
        row = json.loads(line)
        assert row["id"] not in got, f"{row['id']} written twice"
        got[row["id"]] = row
    return got


def errors(out: Path) -> list[dict]:
    return [json.loads(x) for x in Path(f"{out}.errors.jsonl").read_text().splitlines()]


@needs_ray
def test_ray_grades_like_the_default_engine_and_resumes(tmp_path, built_index, local_ray):
    settings, _ = built_index
    src, valid = mixed_input(tmp_path)
    plain, on_ray = tmp_path / "plain.jsonl", tmp_path / "ray.jsonl"
    assert grade(settings, src, plain) == 1
    assert grade(settings, src, on_ray, "--engine", "ray", "--concurrency", "2") == 1

    expected = by_id(plain)
    assert sorted(expected) == sorted(valid)
    assert by_id(on_ray) == expected  # same ids, scores, claims, feedback, input columns
    reasons = {e["line"]: e["reason"] for e in errors(on_ray)}
    assert errors(on_ray) == errors(plain)
    assert sorted(reasons) == [4, 9, 14, 19]
    assert "not valid JSON" in reasons[4] and "question" in reasons[9]
    assert "limit is 8000" in reasons[14] and "repeated id" in reasons[19]

    # The driver dies after writing 7 rows: resume grades the rest, once each (on one actor).
    kept = on_ray.read_text("utf-8").splitlines(keepends=True)[:7]
    on_ray.write_text("".join(kept), "utf-8")
    assert grade(settings, src, on_ray, "--engine", "ray", "--concurrency", "1", "--resume") == 1
    assert by_id(on_ray) == expected
    assert len(errors(on_ray)) == 4


@needs_ray
def test_ray_llm_grader_keeps_one_request_per_actor_in_flight(tmp_path, local_ray):
    src = write_jsonl(tmp_path / "in.jsonl", rows(6))
    out = tmp_path / "out.jsonl"

    def once_both_ask(body):
        """Hold the first request until the other actor's first one arrives (actors start at
        different times), then answer at once: shows the pool's width, not start-up skew."""
        deadline = time.monotonic() + 15
        while llm.max_in_flight < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        return first_point_covered(body)

    with FakeLLM(once_both_ask, delay_s=0.2) as llm:
        os.environ["INTERVIEWER_LLM_BASE_URL"] = llm.url
        try:
            args = ["--grader", "llm", "--engine", "ray", "--concurrency", "2"]
            assert grade_in(tmp_path / "d", src, out, *args) == 0
        finally:
            del os.environ["INTERVIEWER_LLM_BASE_URL"]
    assert sorted(by_id(out)) == sorted(f"r{i}" for i in range(6))
    assert {r["grader"] for r in by_id(out).values()} == {"llm"}
    assert llm.max_in_flight == 2


def grade_in(data: Path, src: Path, out: Path, *extra: str) -> int:
    return main(["--data-dir", str(data), "grade", str(src), "-o", str(out), "-q", *extra])


def test_without_ray_the_error_says_what_to_install(tmp_path, monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a)
    )
    src = write_jsonl(tmp_path / "in.jsonl", rows(1))
    assert grade_in(tmp_path / "d", src, tmp_path / "o.jsonl", "--engine", "ray") == 2
    assert "pip install 'interviewer[ray]'" in capsys.readouterr().err


@needs_ray
def test_vllm_on_ray_config_and_requests_match_the_other_llm_paths(tmp_path):
    pytest.importorskip("ray.data.llm", reason="ray.data.llm does not import here")
    from interviewer.config import Settings
    from interviewer.llm import OpenAICompatible, vllm_engine_kwargs
    from interviewer.llm_grader import LLMGrader, grade_schema
    from interviewer.ray_batch import vllm_processor_config, vllm_request
    from interviewer.references import gather

    settings = Settings(data_dir=tmp_path, llm_model="Qwen/Qwen2.5-1.5B-Instruct", llm_seed=7)
    config = vllm_processor_config(settings, concurrency=2, batch_size=16)
    assert config.model_source == "Qwen/Qwen2.5-1.5B-Instruct"
    assert (config.concurrency, config.batch_size) == (2, 16)
    assert vllm_engine_kwargs(settings).items() <= config.engine_kwargs.items()
    assert config.engine_kwargs["structured_outputs_config"]["backend"] == "xgrammar"

    grader = LLMGrader(OpenAICompatible(settings), settings)
    question, answer = "What is the difference between HBM and GDDR?", "HBM is stacked."
    refs = gather(question, None, settings, REF)
    request = vllm_request(grader, question, answer, refs)
    assert request is not None
    assert request["messages"] == grader.messages(question, answer, refs)
    params = request["sampling_params"]
    assert params["temperature"] == 0.0 and params["seed"] == 7
    schema = json.loads(params["structured_outputs"]["json"])  # text: one Arrow type per row
    assert schema["properties"]["points"]["items"]["properties"]["id"]["enum"]
    assert schema == grade_schema(
        settings.llm_max_tokens,
        schema["properties"]["points"]["items"]["properties"]["id"]["enum"],
        [],
    )
    assert vllm_request(grader, question, "I don't know.", refs) is None  # a rule settles it


def _grading_actors() -> list[int]:
    """PIDs of the live Ray workers that hold a grading actor (by their process title)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            title = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if title.startswith("ray::") and "GradeStage" in title:
            pids.append(int(proc.name))
    return pids


@needs_ray
def test_a_killed_grading_worker_loses_and_repeats_nothing(tmp_path, built_index, local_ray):
    """SIGKILL one grading actor mid-run: Ray restarts it and retries its batch; the driver
    writes each row once (a retried batch's repeats are dropped), and the grades are the
    default engine's."""
    import signal
    import threading

    settings, _ = built_index
    many = [
        r | {"id": f"k{i}", "answer": f"{r['answer']} Row {i}."} for i, r in enumerate(rows(60))
    ]
    src = write_jsonl(tmp_path / "in.jsonl", many)
    plain, on_ray = tmp_path / "plain.jsonl", tmp_path / "ray.jsonl"
    assert grade(settings, src, plain) == 0

    killed: list[int] = []

    def kill_one_once_rows_flow() -> None:
        # Once rows flow; or, where the machine is so loaded that they only show at the end,
        # once an actor has been up for 15 s (loading models or grading: mid-run either way).
        deadline = time.monotonic() + 120
        first_seen = None
        while time.monotonic() < deadline and not killed:
            written = on_ray.read_text("utf-8").count("\n") if on_ray.exists() else 0
            actors = _grading_actors()
            if actors and first_seen is None:
                first_seen = time.monotonic()
            long_up = first_seen is not None and time.monotonic() - first_seen > 15
            if actors and (written >= 1 or long_up):
                os.kill(actors[0], signal.SIGKILL)
                killed.append(written)
            time.sleep(0.05)

    killer = threading.Thread(target=kill_one_once_rows_flow)
    killer.start()
    rc = grade(settings, src, on_ray, "--engine", "ray", "--concurrency", "2")
    killer.join()
    assert killed, "no grading actor was found to kill"
    assert killed[0] < len(many), "the kill came after the run had finished"
    failed = Path(f"{on_ray}.errors.jsonl")
    assert rc == 0 and (not failed.exists() or not failed.read_text("utf-8").strip())
    assert by_id(on_ray) == by_id(plain)  # every row once, graded as the default engine does


def _canned_engine(ds):
    """Stands in for the vLLM processor (no GPU here): per request row, the reply the fake
    server gives (`fake_llm.first_point_covered`), from the row's own messages and schema; a
    row whose id starts with "garbled" gets a reply that is not JSON. Self-contained: Ray ships
    it to its workers by value."""

    def reply(row):
        import json as j

        schema = j.loads(row["sampling_params"]["structured_outputs"]["json"])
        ids = schema["properties"]["points"]["items"]["properties"]["id"]["enum"]
        user = next(m["content"] for m in row["messages"] if "<answer>" in m["content"])
        answer = user.split("<answer>")[-1].split("</answer>")[0].strip()
        if str(row["key"]).startswith("garbled"):
            return {"key": row["key"], "generated_text": "{not json"}
        quote = " ".join(answer.split()[:4])
        points = [
            {
                "id": i,
                "verdict": "covered" if n == 0 else "missed",
                "quote": quote if n == 0 else "",
            }
            for n, i in enumerate(ids)
        ]
        body = {
            "points": points,
            "misconceptions": [],
            "flags": [],
            "feedback": "Good. Mention cost.",
        }
        return {"key": row["key"], "generated_text": j.dumps(body)}

    return ds.map(reply)


@needs_ray
def test_vllm_on_ray_grades_as_the_server_path_does_and_resumes(tmp_path, local_ray):
    """`--engine ray-vllm` with the engine stage replaced by the fake server's replies: rules
    settle what they settle without the model, every other row's reply is read as the server
    path reads it (same grades), an invalid reply is that row's error, and --resume grades it."""
    from interviewer.config import Settings
    from interviewer.ray_batch import grade_file_ray_vllm

    src = write_jsonl(
        tmp_path / "in.jsonl",
        [
            *rows(4),
            {
                "id": "idk",
                "question": "What is HBM?",
                "answer": "I don't know.",
                "reference_answer": REF,
            },
            "{not json",
        ],
    )
    served = tmp_path / "served.jsonl"
    with FakeLLM(first_point_covered) as llm:
        os.environ["INTERVIEWER_LLM_BASE_URL"] = llm.url
        try:
            assert grade_in(tmp_path / "d", src, served, "--grader", "llm") == 1
        finally:
            del os.environ["INTERVIEWER_LLM_BASE_URL"]

    settings = Settings(data_dir=tmp_path / "d", grader="llm")
    on_ray = tmp_path / "ray.jsonl"
    summary = grade_file_ray_vllm(src, on_ray, settings, False, engine=_canned_engine)
    assert summary.graded == 5 and summary.errors == 1  # the torn line
    assert by_id(on_ray) == by_id(served)
    assert by_id(on_ray)["idk"]["decided_by"] == "rule:non_answer"

    garbled = write_jsonl(tmp_path / "g.jsonl", [rows(1)[0] | {"id": "garbled-1"}])
    out = tmp_path / "g-out.jsonl"
    summary = grade_file_ray_vllm(garbled, out, settings, False, engine=_canned_engine)
    assert summary.errors == 1 and "reply was invalid" in errors(out)[0]["reason"]
    assert not out.read_text("utf-8").strip()

    def fixed(row):  # nested: shipped to Ray's workers by value
        body = {"points": [], "misconceptions": [], "flags": [], "feedback": "ok"}
        return {"key": row["key"], "generated_text": json.dumps(body)}

    summary = grade_file_ray_vllm(
        garbled, out, settings, False, resume=True, engine=lambda ds: ds.map(fixed)
    )
    assert summary.graded == 1 and list(by_id(out)) == ["garbled-1"]


@needs_ray
def test_ray_vllm_engine_needs_the_llm_grader(tmp_path, capsys):
    src = write_jsonl(tmp_path / "in.jsonl", rows(1))
    assert grade_in(tmp_path / "d", src, tmp_path / "o.jsonl", "--engine", "ray-vllm") == 2
    assert "add --grader llm" in capsys.readouterr().err


@needs_ray
# Ray 2.60's vLLM engine stage declares a pydantic V1-style validator (its own code, at import).
@pytest.mark.filterwarnings(
    "ignore::pydantic.warnings.PydanticDeprecatedSince20:ray.llm._internal.batch.stages"
)
def test_the_vllm_processor_is_built_for_gpu_workers(tmp_path, local_ray):
    """The real `ray.data.llm` processor `--engine ray-vllm` runs, built here without a GPU
    (a local model folder, so nothing is fetched): chat template, tokenize, the vLLM engine on
    one GPU per replica with the server path's engine settings, detokenize."""
    pytest.importorskip("ray.data.llm", reason="ray.data.llm does not import here")
    from interviewer.config import Settings
    from interviewer.embeddings import _packaged_model_path
    from interviewer.llm import vllm_engine_kwargs
    from interviewer.ray_batch import _vllm_processor

    settings = Settings(data_dir=tmp_path, llm_model=_packaged_model_path())
    processor = _vllm_processor(settings, replicas=2)
    stages = processor.stages
    assert list(stages) == [
        "ChatTemplateStage",
        "TokenizeStage",
        "vLLMEngineStage",
        "DetokenizeStage",
    ]
    engine = stages["vLLMEngineStage"]
    assert engine.map_batches_kwargs["num_gpus"] == 1
    assert engine.map_batches_kwargs["compute"].max_size == 2
    assert (
        vllm_engine_kwargs(settings).items()
        <= engine.fn_constructor_kwargs["engine_kwargs"].items()
    )
