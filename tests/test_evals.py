"""The eval harness on a few rows (real grading; the figures themselves come from evals/)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from interviewer.cli import main
from interviewer.metrics import bootstrap_ci, f1_scores, fit_threshold, qwk, regression

ROWS = [
    ("What is a stack?", "A LIFO data structure.", "A last-in first-out structure.", 5.0, 0),
    ("What is a stack?", "A LIFO data structure.", "A kind of tree.", 1.0, 0),
    ("What is a stack?", "A LIFO data structure.", "LIFO list of items.", 4.5, 0),
    ("What is a queue?", "A FIFO data structure.", "First in first out.", 5.0, 1),
    ("What is a queue?", "A FIFO data structure.", "I don't know", 0.0, 1),
    ("What is a queue?", "A FIFO data structure.", "It is like a stack.", 1.5, 1),
    (
        "What is a heap?",
        "A tree where each parent is ordered before its children.",
        "A tree with the heap property: parents before children.",
        5.0,
        2,
    ),
    (
        "What is a heap?",
        "A tree where each parent is ordered before its children.",
        "Memory for malloc.",
        2.0,
        2,
    ),
]


def test_metrics_on_known_values():
    r = regression([0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5])
    assert r["pearson"] == pytest.approx(1) and r["qwk"] == pytest.approx(1) and r["rmse"] == 0
    assert qwk([0, 0, 5, 5], [5, 5, 0, 0]) < 0
    f = f1_scores(["a", "a", "b"], ["a", "b", "b"])
    assert f["accuracy"] == pytest.approx(2 / 3)
    lo, hi = bootstrap_ci(np.arange(40) % 6, np.arange(40) % 6, [str(i % 8) for i in range(40)])
    assert lo == pytest.approx(1) and hi == pytest.approx(1)
    assert fit_threshold(
        [0, 1, 4, 5], ["incorrect", "incorrect", "correct", "correct"], "correct"
    ) in (1.5, 2.0, 2.5, 3.0, 3.5, 4.0)


def test_eval_command_writes_report_metrics_and_plots(tmp_path, capsys):
    data = tmp_path / "tiny.jsonl"
    data.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"t{n}",
                    "question": q,
                    "reference_answer": ref,
                    "student_answer": a,
                    "score": s,
                    "question_fold_5": fold,
                    "question_id": q,
                    "score_grader1_ta": s,
                    "score_grader2_mohler": max(0.0, s - 1),
                    "excluded_in_published_work": False,
                    "is_exam": False,
                }
            )
            + "\n"
            for n, (q, ref, a, s, fold) in enumerate(ROWS)
        )
    )
    out = tmp_path / "report"
    assert (
        main(
            [
                "--data-dir",
                str(tmp_path / "d"),
                "eval",
                str(data),
                "--split",
                "report",
                "--out",
                str(out),
                "-q",
                "--repeats",
                "2",
            ]
        )
        == 0
    )
    metrics = json.loads((out / "metrics.json").read_text())
    m = metrics["metrics"]
    assert metrics["n"] == 5  # folds 1-2 only
    assert {"pearson", "spearman", "qwk", "mae", "rmse", "exact", "within1"} <= set(m["grader"])
    assert m["baseline_constant_mean"]["value"] == pytest.approx(np.mean([5.0, 1.0, 4.5]))
    assert "human_vs_human" in m and m["stability"]["repeats"] == 2
    assert m["stability"]["mean_range"] == 0  # the offline grader is deterministic
    report = (out / "report.md").read_text()
    assert "baseline: constant dev mean" in report and "human vs human" in report
    for png in ("confusion.png", "scatter.png"):
        assert (out / png).read_bytes()[:4] == b"\x89PNG"
    assert "pearson=" in capsys.readouterr().out


def test_a_file_of_bank_questions_given_by_path_is_graded_against_the_bank(built_index, tmp_path):
    """Rows without a reference answer (the in-domain shape, e.g. evals/data/claims_blind.jsonl)
    are graded on the bank's rubrics when the file is given by path; they were all graded
    without references (every row 0) because only the name "indomain" opened the index."""
    settings, _ = built_index
    rows = [
        (
            "What is the difference between HBM and GDDR?",
            "HBM is 3D-stacked DRAM on the GPU "
            "package with over 3 TB/s on an H100; GDDR is cheaper board-mounted memory around "
            "1 TB/s, so datacenter GPUs use HBM and consumer cards GDDR.",
            5,
            "test",
        ),
        ("What is the difference between HBM and GDDR?", "I don't know.", 0, "test"),
        ("What is the difference between HBM and GDDR?", "HBM is stacked memory.", 2, "dev"),
    ]
    data = tmp_path / "mine.jsonl"
    data.write_text(
        "".join(
            json.dumps(
                {"id": f"m{n}", "question": q, "answer": a, "score": s, "case": "x", "split": split}
            )
            + "\n"
            for n, (q, a, s, split) in enumerate(rows)
        )
    )
    out = tmp_path / "report"
    args = ["--data-dir", str(settings.data_dir), "eval", str(data), "--split", "report"]
    assert main([*args, "--out", str(out), "-q"]) == 0
    lines = (out / "grades.jsonl").read_text().splitlines()
    graded = [json.loads(line)["grade"] for line in lines]
    assert [g["score"] >= 4 for g in graded] == [True, False]
    assert "no_reference" not in graded[0]["flags"] and graded[0]["provenance"]["rubric_id"]
