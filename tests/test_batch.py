"""Batch grading: bad rows go to an errors file, the rest is graded, and runs resume."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from interviewer.cli import main
from tests.fake_llm import FakeLLM

REF = "HBM is 3D-stacked memory with massive bandwidth. GDDR has lower bandwidth and costs less."


def rows(n: int) -> list[dict]:
    return [
        {
            "id": f"r{i}",
            "question": "What is the difference between HBM and GDDR?",
            "answer": f"HBM is stacked and fast ({i}); GDDR is cheaper.",
            "reference_answer": REF,
            "cohort": "spring",
        }
        for i in range(n)
    ]


def write_jsonl(path: Path, items: list) -> Path:
    path.write_text("".join((json.dumps(r) if isinstance(r, dict) else r) + "\n" for r in items))
    return path


def test_csv_in_csv_out_with_bad_rows(tmp_path, built_index, capsys):
    settings, _ = built_index
    src = tmp_path / "in.csv"
    with src.open("w", newline="") as f:
        w = csv.DictWriter(f, ["id", "question", "answer", "score", "cohort"])
        w.writeheader()
        w.writerow(
            {
                "id": "a",
                "question": "What is NCCL?",
                "score": "3",
                "cohort": "x",
                "answer": "NVIDIA's collective communications library: all-reduce, "
                "all-gather, broadcast, topology aware.",
            }
        )
        w.writerow({"id": "b", "question": "", "answer": "something", "cohort": "x"})
        w.writerow({"id": "c", "question": "What is NCCL?", "answer": "x" * 9000, "cohort": "x"})
        w.writerow({"id": "d", "question": "What is NCCL?", "answer": "", "cohort": "y"})
    out = tmp_path / "out.csv"
    code = main(["--data-dir", str(settings.data_dir), "grade", str(src), "-o", str(out), "-q"])
    assert code == 1  # some rows failed
    assert out.read_bytes().startswith(b"\xef\xbb\xbf")  # Excel reads it as UTF-8
    graded = list(csv.DictReader(out.read_text("utf-8-sig").splitlines()))
    assert [r["id"] for r in graded] == ["a", "d"]
    assert graded[0]["cohort"] == "x" and graded[0]["input_score"] == "3"
    # graded, not zeroed as off-topic (how well a terse answer is credited is an eval's job)
    assert graded[0]["score"] in {"1", "2", "3", "4", "5"} and graded[0]["grader"] == "offline"
    assert graded[1]["score"] == "0" and graded[1]["flags"] == "empty"
    errors = [json.loads(x) for x in (tmp_path / "out.csv.errors.jsonl").read_text().splitlines()]
    assert [(e["id"], e["line"]) for e in errors] == [("b", 3), ("c", 4)]
    assert "question" in errors[0]["reason"] and "limit" in errors[1]["reason"]
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["flagged"] == {"empty": 1}  # the mean's zero, counted apart


def test_jsonl_malformed_lines_and_summary(tmp_path, built_index, capsys):
    settings, _ = built_index
    src = write_jsonl(
        tmp_path / "in.jsonl",
        [*rows(3), "{not json", '["a list"]', {"id": "x", "answer": "no question field"}],
    )
    out = tmp_path / "out.jsonl"
    main(["--data-dir", str(settings.data_dir), "grade", str(src), "-o", str(out), "-q"])
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["graded"] == 3 and summary["errors"] == 3 and summary["grader"] == "offline"
    got = [json.loads(x) for x in out.read_text().splitlines()]
    assert {g["id"] for g in got} == {"r0", "r1", "r2"}
    assert summary["mean_score"] == round(sum(g["score"] for g in got) / 3, 3)
    assert all(isinstance(g["score"], int) and g["cohort"] == "spring" for g in got)
    errors = (tmp_path / "out.jsonl.errors.jsonl").read_text()
    assert '"line": 4' in errors and "not valid JSON" in errors and "not a JSON object" in errors


def test_existing_output_needs_resume(tmp_path, built_index, capsys):
    settings, _ = built_index
    src = write_jsonl(tmp_path / "in.jsonl", rows(1))
    out = tmp_path / "out.jsonl"
    out.write_text("")
    assert main(["--data-dir", str(settings.data_dir), "grade", str(src), "-o", str(out)]) == 2
    assert "--resume" in capsys.readouterr().err


def test_llm_batch_keeps_concurrency_busy_and_survives_a_down_endpoint(tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", rows(12))
    with FakeLLM(delay_s=0.3) as llm:
        out = tmp_path / "out.jsonl"
        env = [
            "--data-dir",
            str(tmp_path / "d"),
            "grade",
            str(src),
            "-o",
            str(out),
            "-q",
            "--grader",
            "llm",
            "--concurrency",
            "4",
        ]
        os.environ["INTERVIEWER_LLM_BASE_URL"] = llm.url
        try:
            assert main(env) == 0
        finally:
            del os.environ["INTERVIEWER_LLM_BASE_URL"]
    assert llm.max_in_flight == 4 and len(out.read_text().splitlines()) == 12
    down = tmp_path / "down.jsonl"
    os.environ.update(
        INTERVIEWER_LLM_BASE_URL="http://127.0.0.1:9/v1", INTERVIEWER_LLM_MAX_RETRIES="0"
    )
    try:
        assert (
            main(
                [
                    "--data-dir",
                    str(tmp_path / "d"),
                    "grade",
                    str(src),
                    "-o",
                    str(down),
                    "-q",
                    "--grader",
                    "llm",
                ]
            )
            == 1
        )
    finally:
        del os.environ["INTERVIEWER_LLM_BASE_URL"], os.environ["INTERVIEWER_LLM_MAX_RETRIES"]
    errors = (tmp_path / "down.jsonl.errors.jsonl").read_text().splitlines()
    assert len(errors) == 12 and "127.0.0.1:9" in errors[0]


def test_killed_run_resumes_without_losing_or_duplicating_rows(tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", rows(30))
    out = tmp_path / "out.jsonl"
    with FakeLLM(delay_s=0.15) as llm:
        env = os.environ | {
            "INTERVIEWER_LLM_BASE_URL": llm.url,
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
            "2",
            "-q",
        ]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline and (
            not out.exists() or len(out.read_text().splitlines()) < 5
        ):
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        before = len(out.read_text().splitlines())
        assert 5 <= before < 30
        done = subprocess.run(
            [*cmd, "--resume"], env=env, capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 0, done.stderr
    ids = [json.loads(x)["id"] for x in out.read_text().splitlines() if x.strip()]
    assert sorted(ids) == sorted(f"r{i}" for i in range(30))
    assert json.loads(done.stdout.strip().splitlines()[-1])["resumed_past"] >= before - 1


def run_grade(settings, src: Path, out: Path, *extra: str) -> int:
    return main(
        ["--data-dir", str(settings.data_dir), "grade", str(src), "-o", str(out), "-q", *extra]
    )


def graded_ids(out: Path) -> list[str]:
    return [json.loads(x)["id"] for x in out.read_bytes().decode().split("\n") if x.strip()]


def error_lines(out: Path) -> dict[int, str]:
    errs = Path(str(out) + ".errors.jsonl").read_text().splitlines()
    return {json.loads(e)["line"]: json.loads(e)["reason"] for e in errs}


def test_hostile_jsonl_rows_are_reported_one_by_one_and_the_rest_graded(tmp_path, built_index):
    settings, _ = built_index
    good = rows(4)
    lines = [
        "\ufeff" + json.dumps(good[0]),  # a BOM on line 1 is not an error
        '{"id": "s", "question": "Q?", "answer": "\\ud800 lone surrogate"}',
        "[" * 200_000,
        '{"id": "nan", "question": "Q?", "answer": "x", "score": NaN}',
        json.dumps(good[1] | {"answer": "HBM\u2028is stacked; GDDR is cheaper."}),
        json.dumps(good[2]),
        json.dumps(good[2] | {"answer": "the same id again"}),
        json.dumps(good[3]),
    ]
    src = tmp_path / "in.jsonl"
    src.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass") + b"\n\xff\xfe\n")
    out = tmp_path / "out.jsonl"
    assert run_grade(settings, src, out) == 1
    assert graded_ids(out) == ["r0", "r1", "r2", "r3"]
    errs = error_lines(out)
    assert "surrogate" in errs[2] and "nested too deeply" in errs[3]
    assert "NaN" in errs[4] and "repeated id" in errs[7] and "UTF-8" in errs[9]
    assert "Infinity" not in out.read_text() and "NaN" not in out.read_text()
    # Resume splits on \n only: the U+2028 row is not graded twice.
    assert run_grade(settings, src, out, "--resume") == 1
    assert graded_ids(out) == ["r0", "r1", "r2", "r3"]


def test_hostile_csv_is_reported_not_swallowed(tmp_path, built_index):
    settings, _ = built_index
    src = tmp_path / "in.csv"
    big = "x" * 140_000
    src.write_text(
        "id,question,answer\n"
        "a,What is NCCL?,NVIDIA's collective communication library.\n"
        f"b,What is NCCL?,{big}\n"
        'c,What is NCCL?,"an unterminated quote\n'
        "d,What is NCCL?,never read as its own row\n"
    )
    out = tmp_path / "out.jsonl"
    assert run_grade(settings, src, out) == 1
    assert graded_ids(out) == ["a"]
    errs = error_lines(out)
    assert (
        "limit is 8000" in errs[3]
        and "unterminated quote" in next(iter(errs.values()), "") + errs[max(errs)]
    )
    latin = tmp_path / "latin.csv"
    latin.write_bytes("id,question,answer\na,Qu'est-ce?,caf\xe9\n".encode("latin-1"))
    assert run_grade(settings, latin, tmp_path / "l.jsonl") == 2  # a clear error, no work done
    assert not (tmp_path / "l.jsonl").exists()


def test_a_bad_setting_is_a_clear_error_not_a_traceback(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("INTERVIEWER_NLI_PRECISION", "fp16")
    src = write_jsonl(tmp_path / "in.jsonl", rows(1))
    assert main(["grade", str(src), "-o", str(tmp_path / "o.jsonl"), "-q"]) == 2
    err = capsys.readouterr().err
    assert "INTERVIEWER_NLI_PRECISION='fp16'" in err and "'fp32'" in err
    assert "Traceback" not in err and not (tmp_path / "o.jsonl").exists()


def test_bad_paths_are_clear_errors_before_any_work(tmp_path, built_index, capsys):
    settings, _ = built_index
    folder = tmp_path / "x.csv"
    folder.mkdir()
    assert run_grade(settings, folder, tmp_path / "o.jsonl") == 2
    assert "not a file" in capsys.readouterr().err
    # With the progress bar on, the error comes alone (an empty bar was drawn before it).
    args = ["--data-dir", str(settings.data_dir), "grade", str(folder), "-o", "o.jsonl"]
    assert main(args) == 2
    assert capsys.readouterr().err.strip() == f"error: {folder}: not a file"
    src = write_jsonl(tmp_path / "in.jsonl", rows(1))
    assert run_grade(settings, src, tmp_path / "missing" / "o.jsonl") == 2
    assert "no such folder" in capsys.readouterr().err
    # A CSV without an answer column is refused before the output exists: a run with the
    # column renamed then starts clean (it used to leave an empty output that asked for
    # --resume).
    bad = tmp_path / "student.csv"
    bad.write_text("id,question,student_answer\n1,What is HBM?,Stacked DRAM.\n", "utf-8")
    out = tmp_path / "graded.jsonl"
    assert run_grade(settings, bad, out) == 2
    err = capsys.readouterr().err
    assert "needs 'question' and 'answer' columns" in err and "'student_answer'" in err
    assert not out.exists() and not (tmp_path / "graded.jsonl.errors.jsonl").exists()
    bad.write_text("id,question,answer\n1,What is HBM?,Stacked DRAM.\n", "utf-8")
    assert run_grade(settings, bad, out) == 0


def test_a_short_csv_row_and_a_review_threshold_outside_0_1_say_what_is_wrong(
    tmp_path, built_index, capsys
):
    """A batch trial: a short CSV row was reported as "answer: Input should be a valid string",
    and --review-below 1.5 sent every grade to review without a word."""
    settings, _ = built_index
    src = tmp_path / "in.csv"
    src.write_text("id,question,answer\n1,What is HBM?,Stacked DRAM.\n2,What is HBM?\n", "utf-8")
    out = tmp_path / "o.jsonl"
    assert run_grade(settings, src, out) == 1
    errors = (tmp_path / "o.jsonl.errors.jsonl").read_text()
    assert "fewer fields than the header has (2 of 3)" in errors
    capsys.readouterr()
    args = ["--data-dir", str(settings.data_dir), "grade", str(src), "-o", str(tmp_path / "p")]
    for bad in ("1.5", "-1", "abc"):
        with pytest.raises(SystemExit) as exit_:
            main([*args, "--review-below", bad])
        assert exit_.value.code == 2 and "--review-below" in capsys.readouterr().err
    assert not (tmp_path / "p").exists()


def test_csv_output_opens_in_a_spreadsheet_as_written(tmp_path, built_index):
    """Trial G: the claims column was a Python printout, a formula in an answer
    ("=HYPERLINK(...)") came out as one a spreadsheet runs, and the review file of a CSV run
    was JSONL. Resume still finds a row whose id had to be guarded."""
    settings, _ = built_index
    src = tmp_path / "in.csv"
    with src.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, ["id", "question", "answer"])
        w.writeheader()
        w.writerow({"id": "=1+1", "question": "What is NCCL?", "answer": '=HYPERLINK("x","y")'})
        w.writerow(
            {
                "id": "b",
                "question": "What is NCCL?",
                "answer": "NVIDIA's collective communications library: it's all-reduce, "
                "all-gather and broadcast, topology aware.",
            }
        )
    out = tmp_path / "out.csv"
    assert run_grade(settings, src, out, "--review-below", "1") == 0
    graded = list(csv.DictReader(out.read_text("utf-8-sig").splitlines()))
    assert [r["id"] for r in graded] == ["'=1+1", "b"]
    assert graded[0]["answer"] == '\'=HYPERLINK("x","y")'
    claims = json.loads(graded[1]["claims"])
    assert claims and {"point", "verdict", "evidence"} <= set(claims[0])
    review = tmp_path / "out.csv.review.csv"
    assert [r["id"] for r in csv.DictReader(review.read_text("utf-8-sig").splitlines())] == [
        "'=1+1",
        "b",
    ]
    before = out.read_bytes()
    assert run_grade(settings, src, out, "--resume") == 0  # both found: nothing graded again
    assert out.read_bytes() == before


def test_each_bad_row_is_named_by_its_id_in_plain_words(tmp_path, built_index):
    """Trial G: "Invalid control character at at column", a row with a field too many named
    "line-8" though its id was there, "Value error, question is empty", and "Input should be
    a valid string" for a number."""
    settings, _ = built_index
    src = tmp_path / "in.csv"
    src.write_text(
        "id,question,answer\n"
        "a,What is HBM?,Stacked DRAM.\n"
        "b,What is HBM?,Stacked,and a field too many\n"
        "c, ,Stacked DRAM.\n",
        "utf-8",
    )
    out = tmp_path / "o.jsonl"
    assert run_grade(settings, src, out) == 1
    errs = [json.loads(x) for x in Path(f"{out}.errors.jsonl").read_text().splitlines()]
    assert [(e["line"], e["id"]) for e in errs] == [(3, "b"), (4, "c")]
    assert errs[0]["reason"] == "more fields than the header has"
    assert errs[1]["reason"] == "question: question is empty"
    bad = write_jsonl(
        tmp_path / "in.jsonl",
        [
            '{"id": "t", "question": "What is HBM?", "answer": "tab\there"}',
            {"id": "n", "question": "What is HBM?", "answer": 42},
        ],
    )
    assert run_grade(settings, bad, tmp_path / "p.jsonl") == 1
    reasons = error_lines(tmp_path / "p.jsonl")
    assert "at at" not in reasons[1] and "Invalid control character at column" in reasons[1]
    assert reasons[2] == "answer: not text (a int)"


def test_the_first_rows_reach_the_output_before_the_rest_are_graded(tmp_path, built_index):
    """Trial G: a 36-row run wrote nothing for 24 s (one chunk of 256), so a kill at 15 s
    kept no row and the progress bar never moved."""
    from interviewer.batch import FIRST_CHUNK, grade_file
    from interviewer.grader import make_grader
    from interviewer.rows import count_rows

    settings, index = built_index
    src = write_jsonl(tmp_path / "in.jsonl", rows(20))
    assert count_rows(src) == 20
    out = tmp_path / "o.jsonl"
    seen: list[tuple[int, int]] = []

    def progress(n: int) -> None:
        seen.append((n, len(out.read_bytes().splitlines())))

    grade_file(
        src, out, make_grader("offline", settings, index=index), settings, index, progress=progress
    )
    assert seen[0] == (FIRST_CHUNK, FIRST_CHUNK)  # written when the bar first moves
    assert sum(n for n, _ in seen) == 20 and len(graded_ids(out)) == 20


def test_a_row_can_name_its_bank_question_by_id(tmp_path, built_index):
    """Trial G copied question texts from `interviewer bank` to tie rows to bank questions:
    a `question_id` column does it, and an id the bank lacks is that row's error."""
    settings, index = built_index
    q = next(q for q in index.bank.questions if q.text.startswith("Why use BF16 instead of FP16"))
    src = write_jsonl(
        tmp_path / "in.jsonl",
        [
            {"id": "a", "question_id": q.id, "question": "BF16?", "answer": "Same range as FP32."},
            {"id": "b", "question_id": "q-0000000000", "question": "BF16?", "answer": "Range."},
            # A file's own numbering under that name is just another column.
            {"id": "c", "question_id": "Q3", "question": "What is HBM?", "answer": "Stacked."},
        ],
    )
    out = tmp_path / "o.jsonl"
    assert run_grade(settings, src, out) == 1
    graded = [json.loads(x) for x in out.read_text().splitlines()]
    assert [g["id"] for g in graded] == ["a", "c"] and graded[0]["rubric"] == "authored"
    assert graded[1]["question_id"] == "Q3"
    assert any("same dynamic range as FP32" in c for c in graded[0]["covered"])
    assert "'q-0000000000' is not in the bank" in error_lines(out)[2]


def test_a_row_with_no_reference_material_is_not_in_the_mean(tmp_path, built_index, capsys):
    """A team lead's trial (J): a question the bank and the passages know nothing of was written
    with score 0 and counted in the run's mean score."""
    settings, _ = built_index
    src = write_jsonl(
        tmp_path / "in.jsonl",
        [*rows(2), {"id": "odd", "question": "What is a frobnicator?", "answer": "It frobs."}],
    )
    out = tmp_path / "out.jsonl"
    main(["--data-dir", str(settings.data_dir), "grade", str(src), "-o", str(out), "-q"])
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    got = {g["id"]: g for g in map(json.loads, out.read_text().splitlines())}
    assert got["odd"]["flags"] == ["no_reference"] and summary["flagged"] == {"no_reference": 1}
    assert summary["graded"] == 3
    assert summary["mean_score"] == round((got["r0"]["score"] + got["r1"]["score"]) / 2, 3)
