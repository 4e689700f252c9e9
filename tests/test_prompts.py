"""Every prompt file renders, and an undefined variable is an error."""

from __future__ import annotations

import jinja2
import pytest

from interviewer.grade import Reference
from interviewer.prompts import available, render

VARIABLES = {
    "grade_v2": {},
    "grade_v2.user": {
        "question": "Q?",
        "answer": "A.",
        "references": [Reference("r1", "bank", "Ref.", ("kp one",), "src")],
    },
    "followup_v1": {},
    "followup_v1.user": {
        "question": "Q?",
        "missed": "kp",
        "answer": "A.",
        "references": [Reference("p1", "passage", "Passage.")],
    },
}


def test_every_prompt_renders():
    names = available()
    assert set(names) == set(VARIABLES), "add new prompts to VARIABLES"
    for name in names:
        text = render(name, **VARIABLES[name])
        assert text and "{{" not in text and "{%" not in text


def test_undefined_variable_is_an_error():
    with pytest.raises(jinja2.UndefinedError):
        render("grade_v2.user", question="Q?", references=[])
