"""Questions from the user's own notes: Markdown headings or "Q:" lines that ask something,
wrapped lines read as the sentences they are, and HTML paragraphs as one line (trial H)."""

from __future__ import annotations

from interviewer.documents import _html_to_text
from interviewer.parsing import parse_text
from interviewer.rubrics import auto_rubric
from interviewer.sentences import unwrap

NOTES = """# CUDA streams and events

## What is a CUDA event, and how do you time a kernel with events?

To time GPU work, record a start event and a stop event around it, call
`cudaEventSynchronize(stop)`, then `cudaEventElapsedTime`. The result is in
milliseconds with a resolution of about 0.5 microseconds.

```c
cudaEventRecord(start, s);
```

## What are stream priorities? (hard)

- Lower numbers mean
  higher priority; the range goes from 0 to
-5 (highest) on recent GPUs.

### Not a question

Q: Why does cudaMemcpyAsync need pinned host memory?
A: The copy engines move data with DMA, and DMA needs physical addresses
that the OS will not page out.
"""


def test_questions_written_as_headings_or_q_lines_are_found():
    items = parse_text("notes.md", NOTES)
    assert [(it.text, it.difficulty, it.difficulty_inferred) for it in items] == [
        ("What is a CUDA event, and how do you time a kernel with events?", "medium", True),
        ("What are stream priorities?", "hard", False),
        ("Why does cudaMemcpyAsync need pinned host memory?", "medium", True),
    ]
    assert items[0].kind == "concept" and items[0].section == "CUDA streams and events"
    assert "cudaEventRecord(start, s);" in (items[0].reference or "")
    assert "```" not in (items[0].reference or "")
    assert (items[2].reference or "").startswith("The copy engines move data")


def test_wrapped_lines_make_whole_key_points():
    items = parse_text("notes.md", NOTES)
    rubric = auto_rubric("q-0000000000", items[0].text, items[0].reference or "")
    assert rubric is not None
    points = [k.text for k in rubric.key_points]
    assert "The result is in milliseconds with a resolution of about 0.5 microseconds." in points
    assert not any(p.endswith(("call.", "is in.")) for p in points)
    assert rubric.key_points[1].label == "The result is in milliseconds with…"
    priorities = auto_rubric("q-0000000001", items[1].text, items[1].reference or "")
    assert priorities is not None
    assert priorities.key_points[0].text.endswith("from 0 to -5 (highest) on recent GPUs.")


def test_a_guides_own_short_lines_are_not_joined():
    guide = "Explain X.\nHardTechnical\n0 practiced\nDiscuss consistency and staleness\nNext"
    assert unwrap(guide) == guide
    assert unwrap("stored in\nHBM and read back") == "stored in HBM and read back"


def test_an_html_paragraph_is_one_line_whatever_its_source_breaks():
    html = (
        "<nav>Home</nav><h2>How big it gets</h2><p>The\n<strong>prefill</strong>\nphase reads "
        "the prompt.</p><ul><li>one</li><li>two <code>x</code></li></ul><pre>a = 1\nb = 2</pre>"
    )
    assert _html_to_text(html).splitlines() == [
        "How big it gets",
        "The prefill phase reads the prompt.",
        "- one",
        "- two x",
        "a = 1",
        "b = 2",
    ]


def test_an_auto_label_stays_within_a_labels_limit():
    """Trial H's notes: a point that opens on code ("`cudaStreamCreateWithFlags(&s,
    cudaStreamNonBlocking)`; ...") gave a label over 60 characters, and the rubrics file no
    longer loaded."""
    from interviewer.rubrics import _RubricIn

    ref = (
        "Create streams with `cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)` and "
        "`cudaStreamCreateWithPriorityAndFlagsExtended(&s2)`; they do not synchronize."
    )
    rubric = auto_rubric("q-0000000000", "How do you create a non-blocking stream?", ref)
    assert rubric is not None and rubric.key_points
    assert all(len(k.label) <= 60 for k in rubric.key_points)
    _RubricIn.model_validate(rubric.to_dict())  # the file it is written to reads back


def test_an_auto_probe_asks_about_a_name_the_point_uses():
    """Trial H: every point of every notes question had the same two probes."""
    ref = (
        "The copy engines move data with DMA, and DMA needs physical addresses. "
        "Pinned memory is allocated with `cudaMallocHost(&p, n)` on the host. "
        "A GPU copies from it while it computes."
    )
    rubric = auto_rubric("q-0000000000", "Why does cudaMemcpyAsync need pinned memory?", ref)
    assert rubric is not None
    assert [k.probe for k in rubric.key_points] == [
        "What part does DMA play here?",
        "What part does cudaMallocHost play here?",
        "What else would you add to your answer, and what mechanism is behind it?",
    ]
    assert rubric.hints[1] == "Think about where DMA comes in."


QUEUES = (
    "The number of hardware work queues is set by `CUDA_DEVICE_MAX_CONNECTIONS`, which "
    "defaults to 8 and can be raised to at most 32."
)


def test_a_bare_number_after_the_same_word_is_read_against_the_points():
    """Trial H: "defaults to 32 and can be raised to 128" against its notes' "defaults to 8
    and can be raised to at most 32" covered the point and scored 4."""
    from interviewer.quantities import bare_number_off

    assert bare_number_off(QUEUES, "It defaults to 32 and can be raised to 128.")
    assert bare_number_off(QUEUES, "It defaults to 16.")
    assert not bare_number_off(QUEUES, "It defaults to 8 and can go up to 32.")
    assert not bare_number_off(QUEUES, "It defaults to 8 GPUs.")  # a unit: the units checks'
    assert not bare_number_off(QUEUES, "If you set it to 4, streams share queues.")


def test_a_wrong_bare_number_against_a_rows_reference_is_a_wrong_claim(tmp_path):
    from interviewer.config import Settings
    from interviewer.grader import grade

    settings = Settings(data_dir=tmp_path)  # no index: the row's own reference alone
    question = "What limits how many streams can run concurrently?"
    wrong = grade(
        question,
        "The number of hardware work queues is set by CUDA_DEVICE_MAX_CONNECTIONS, which "
        "defaults to 32 and can be raised to 128.",
        reference_answer=QUEUES,
        settings=settings,
    )
    assert wrong.score <= 1 and wrong.wrong_claims
    right = grade(
        question,
        "CUDA_DEVICE_MAX_CONNECTIONS sets the hardware work queues: 8 by default, at most 32.",
        reference_answer=QUEUES,
        settings=settings,
    )
    assert not right.wrong_claims


def test_auto_probes_and_hints_of_notes_pass_review():
    """A probe or hint must not repeat a point's words: a long identifier split at its
    underscores had read as six of them ("CUDA_API_PER_THREAD_DEFAULT_STREAM")."""
    from interviewer.rubric_review import lint

    ref = (
        "Compile with `nvcc --default-stream per-thread` (or define "
        "`CUDA_API_PER_THREAD_DEFAULT_STREAM`), which gives each host thread its own stream. "
        "Non-blocking streams made with `cudaStreamCreateWithFlags` do not wait on it."
    )
    notes = [*parse_text("notes.md", NOTES)]
    questions = [(it.text, it.reference or "") for it in notes]
    questions.append(("How do you avoid the legacy default stream?", ref))
    for n, (q, r) in enumerate(questions):
        rubric = auto_rubric(f"q-{n:010x}", q, r)
        assert rubric is not None
        assert [p for p in lint(rubric) if "probe" in p or "hint" in p] == []
