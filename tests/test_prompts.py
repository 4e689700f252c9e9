"""Every prompt file renders, and an undefined variable is an error."""

from __future__ import annotations

import jinja2
import pytest

from interviewer.claims import Claim
from interviewer.prompts import available, render
from interviewer.records import Reference

VARIABLES = {
    "grade_v3": {},
    "grade_v3.user": {
        "question": "Q?",
        "answer": "A.",
        "points": [Claim("k1", "HBM is stacked.", weight=2.0)],
        "wrongs": [{"id": "m1", "text": "HBM is slow."}],
        "passages": [Reference("p1", "passage", "Passage.")],
    },
    "rubric_v2": {},
    "rubric_v2.user": {"question": "Q?", "material": "Reference text."},
    "followup_v2": {},
    "followup_v2.user": {"question": "Q?", "probe": "How does it compare?", "answer": "A."},
}


def test_every_prompt_renders():
    names = available()
    assert set(names) == set(VARIABLES), "add new prompts to VARIABLES"
    for name in names:
        text = render(name, **VARIABLES[name])
        assert text and "{{" not in text and "{%" not in text


def test_undefined_variable_is_an_error():
    with pytest.raises(jinja2.UndefinedError):
        render("grade_v3.user", question="Q?", points=[], wrongs=[])
