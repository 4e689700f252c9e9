"""CI holds the offline grader to its recorded dev figures (evals/floor.py)."""

from __future__ import annotations

import json

import pytest

from evals.floor import FLOOR, TOLERANCE, figures


def test_the_grader_does_not_fall_below_its_recorded_dev_figures(built_index):
    settings, index = built_index
    if not (settings.evaldata_dir / "mohler.jsonl").exists():
        pytest.skip(f"no eval data at {settings.evaldata_dir}")
    recorded = json.loads(FLOOR.read_text("utf-8"))
    got = figures(settings, index)
    for name, want in recorded.items():
        for metric in ("pearson", "qwk"):
            assert got[name][metric] >= want[metric] - TOLERANCE, (name, metric, got, recorded)
