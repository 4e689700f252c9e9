"""The report and the grade card as the candidate reads them (a user trial in headless
Chromium, ui40): follow-up questions before their replies, length advice on main answers only,
a study plan in question order, strengths listed once, and something to learn after a skip."""

from __future__ import annotations

from dataclasses import replace

from interviewer.card import grade_card
from interviewer.records import PARTLY_SAID
from interviewer.report import printable_html, to_json, to_markdown
from interviewer.session import Plan, question_result


def question(engine, starts: str):
    return next(q for q in engine.bank.questions if q.text.startswith(starts))


def with_follow_up(engine):
    """A deep dive on HBM vs GDDR: a partial answer, its follow-up pending."""
    s = engine.start(Plan(("memory",), "easy", 2, "deep dive"))
    q = question(engine, "What is the difference between HBM and GDDR")
    s.current = engine._ask(q)
    out = engine.answer(s, "HBM is 3D-stacked memory on the package with far more bandwidth.")
    assert out.next is not None and out.next.kind == "follow_up"
    return s, q, out.next


def test_each_reply_comes_after_the_follow_up_it_answers(engine):
    s, q, follow_up = with_follow_up(engine)
    reply = "GDDR sits on the board around the GPU and is much cheaper per gigabyte."
    engine.answer(s, reply)
    engine.end(s)
    data = to_json(s, engine.bank, engine.rubric)
    asked = next(x for x in data["questions"] if x["id"] == q.id)
    assert asked["follow_ups"] == [None, follow_up.text]
    md = to_markdown(s, engine.bank, engine.rubric)
    assert f"**Follow-up:** {follow_up.text}\n\n> {reply}" in md
    html = printable_html(md, "report")
    assert html.index("<strong>Follow-up:</strong>") < html.index(reply)


def test_length_advice_is_for_main_answers_and_nothing_is_said_of_an_i_dont_know(engine):
    s, q, _ = with_follow_up(engine)
    engine.answer(s, "It is cheaper.")  # a short reply, as a follow-up wants
    card = grade_card(s, engine)[0]
    assert "Short:" not in card
    if s.current is not None and s.current.question_id == q.id:
        engine.answer(s, "I don't know.")
        assert "Delivery" not in grade_card(s, engine)[0]
    engine.end(s)
    delivery = next(x for x in to_json(s, engine.bank, engine.rubric)["questions"])["delivery"]
    assert delivery[0] and delivery[0][0].startswith("Short: 11 words")  # the main answer
    assert all(not any(x.startswith("Short") for x in d) for d in delivery[1:])
    md = to_markdown(s, engine.bank, engine.rubric)
    assert md.count("_Delivery: Short:") == 1 and "Short: 3 words" not in md


def test_the_study_plan_keeps_question_order_and_no_question_starts_with_also(engine):
    s = engine.start(Plan((), "easy", 2, "rapid-fire"))
    first = question(engine, "What is gradient checkpointing?")
    s.current = engine._ask(first)
    core = [k.text for k in engine.rubric(first).ordered() if k.weight == "core"]
    engine.answer(s, " ".join(core))  # the core points: only supporting ones left to study
    engine.skip(s)  # every point of the second question, core ones included
    second = engine.bank.get(s.turns[-1].prompt.question_id)
    data = to_json(s, engine.bank, engine.rubric)
    order = list(dict.fromkeys(p["question"] for p in data["study_plan"]))
    assert order == [first.text, second.text]
    md = to_markdown(s, engine.bank, engine.rubric)
    plan = md.split("## Study plan", 1)[1].split("## Questions", 1)[0]
    assert plan.index(first.text) < plan.index(second.text)
    firsts = [block.split("\n- ", 1)[1] for block in plan.split("**")[2::2] if "\n- " in block]
    assert firsts and not any(line.startswith("Also:") for line in firsts)
    assert "- Also:" in plan.split(second.text, 1)[1]  # after the core points, it reads well


def test_a_point_covered_twice_in_other_words_is_one_strength(engine):
    s = engine.start(Plan((), "easy", 1, "rapid-fire"))
    q = question(engine, "What is gradient checkpointing?")
    s.current = engine._ask(q)
    engine.answer(s, " ".join(k.text for k in engine.rubric(q).key_points))
    turn = s.turns[0]
    assert turn.grade is not None
    claim = next(c for c in turn.grade.claims if c.point_id == "mechanism")
    # The same point as another reference words it (no authored id): as a reply's grade has it.
    again = replace(claim, point_id="", point=claim.point.replace("keeps only", "stores only"))
    s.turns[0] = replace(turn, grade=replace(turn.grade, claims=(*turn.grade.claims, again)))
    strengths = [x["point"] for x in to_json(s, engine.bank, engine.rubric)["strengths"]]
    assert len(strengths) == 2  # mechanism once, and the trade-off: two distinct core points
    assert sum("recomputes the rest" in p for p in strengths) == 1


def test_after_a_skip_the_card_shows_what_to_learn(engine):
    s = engine.start(Plan(("memory",), "easy", 3, "deep dive"))
    skipped = engine.bank.get(s.current.question_id)
    engine.skip(s)
    card, _ = grade_card(s, engine)
    rubric = engine.rubric(skipped)
    assert card.startswith("### Skipped")
    assert "**Model answer**" in card and rubric.model_answer in card
    assert all(k.text in card for k in rubric.key_points)


def test_a_skipped_follow_up_closes_its_question_on_the_card(engine):
    s, q, _ = with_follow_up(engine)
    engine.skip(s)
    card, refs = grade_card(s, engine)
    assert card.startswith("### Score ") and "You skipped the follow-up" in card
    assert engine.rubric(q).model_answer in card and "**Missed**" in card
    assert refs  # the passages the answer was graded on


def test_a_missed_point_the_answer_partly_said_is_marked_so_on_the_card(engine):
    """A trial (stop 65): about 15 points the candidate had said were listed as missed. One the
    claim checker partly credited is marked, so "missed" is not read as "never said"."""
    s, q, _ = with_follow_up(engine)
    engine.skip(s)
    card, _ = grade_card(s, engine)
    missed = [c for c in question_result(s.turns, q.id).claims if c.verdict == "missed"]
    partly = [c for c in missed if c.credit >= PARTLY_SAID]
    assert partly and len(partly) < len(missed)  # "3D-stacked memory on the package"
    for c in missed:
        tagged = f"- _(said in part, not plainly)_ {c.point}" in card
        assert tagged == (c in partly), c.point
    # ... and so in the report's study plan (a trial, stop 67: the card had it, the plan not)
    engine.end(s)
    plan = to_markdown(s, engine.bank, engine.rubric).split("## Questions", 1)[0]
    for c in missed:
        assert ("_(said in part, not plainly)_ " + c.point in plan) == (c in partly), c.point


def test_a_skipped_follow_up_is_listed_under_its_question_marked_skipped(engine):
    """A user trial (ui41): the report's Questions section left a skipped follow-up out."""
    s, q, follow_up = with_follow_up(engine)
    engine.skip(s)
    engine.end(s)
    data = to_json(s, engine.bank, engine.rubric)
    asked = next(x for x in data["questions"] if x["id"] == q.id)
    assert asked["follow_ups"] == [None, follow_up.text]
    assert asked["answers"][1] is None and asked["delivery"][1] == []
    assert not asked["skipped"] and asked["score"] is not None  # the question was answered
    md = to_markdown(s, engine.bank, engine.rubric)
    section = md.split("## Questions", 1)[1]
    assert f"**Follow-up:** {follow_up.text} — skipped" in section
    assert section.index(asked["answers"][0]) < section.index(follow_up.text)
    assert "(empty)" not in section


def test_the_candidates_words_are_quoted_as_typed_on_the_card_and_in_the_report(engine):
    """Markdown in an answer is shown, not rendered: a wrong claim's "*" made italics on the
    card, and a second line of an answer fell out of the report's quote."""
    s = engine.start(Plan(("memory",), "easy", 1, "rapid-fire"))
    s.current = engine._ask(question(engine, "What is the difference between HBM and GDDR"))
    answer = (
        "HBM has *lower* bandwidth than GDDR, so it is the slower, cheaper option.\n"
        "GDDR is the *stacked* memory."
    )
    engine.answer(s, answer)
    card = grade_card(s, engine)[0]
    said = next(line for line in card.splitlines() if line.startswith("- You said:"))
    assert "HBM has \\*lower\\* bandwidth" in said
    html = printable_html(card, "card")
    assert "HBM has *lower* bandwidth" in html and "<em>lower</em>" not in html
    engine.end(s)
    md = to_markdown(s, engine.bank, engine.rubric)
    assert "> HBM has \\*lower\\* bandwidth" in md and "> GDDR is the \\*stacked\\* memory." in md
    html = printable_html(md, "report")
    assert "GDDR is the *stacked* memory." in html and "<em>stacked</em>" not in html


def test_a_question_left_unanswered_at_the_end_is_in_the_report_marked_skipped(engine):
    """A user trial (stop 63): the question on screen when End was pressed was left out."""
    s = engine.start(Plan(("memory",), "easy", 3, "deep dive"))
    shown = s.current
    assert shown is not None
    engine.end(s)
    data = to_json(s, engine.bank, engine.rubric)
    asked = next(x for x in data["questions"] if x["id"] == shown.question_id)
    assert asked["skipped"] and asked["score"] is None
    assert data["questions_skipped"] == 1 and data["mean_score"] is None
    md = to_markdown(s, engine.bank, engine.rubric)
    assert shown.text in md.split("## Questions", 1)[1]
    engine.end(s)  # ending again records nothing more
    assert len(s.turns) == 1


def test_a_reply_to_a_follow_up_shows_its_own_score_and_the_report_counts_hints(engine):
    """A user trial (stop 64): a wrong reply to a follow-up showed only the question's score
    ("3/5, the core idea is there"), and the report left out the hints taken."""
    s, _, _ = with_follow_up(engine)
    shown = engine.hint(s)
    engine.answer(s, "No idea, maybe it is the same as HBM.")
    card, _ = grade_card(s, engine)
    reply = s.turns[-1]
    assert reply.prompt.kind == "follow_up" and reply.grade is not None
    assert f"_Your reply to the follow-up, on its own: {reply.grade.score}/5._" in card
    engine.end(s)
    md = to_markdown(s, engine.bank, engine.rubric)
    section = md.split("## Questions", 1)[1]
    # ... and which hint (stop 67: a trial's report said "Hints taken: 1" and not which)
    assert shown.startswith("Hint 1 of ")
    assert f"_Hints taken (1):_\n\n- {shown.split(': ', 1)[1]}\n" in section
    # ... and the report gives the reply's own score too (stop 65: only the card had it)
    assert f"_Reply scored {reply.grade.score}/5 on its own._" in section


def test_skipped_questions_count_in_the_verdict_and_a_late_answer_is_marked(engine):
    """A user trial (stop 65): "4 / 5 over 1 question (2 skipped) ... Strong: interview-ready",
    and a late rapid-fire answer was marked in the chat and on the card, not in the report."""
    s = engine.start(Plan((), "easy", 3, "rapid-fire"))
    engine.skip(s)
    q = question(engine, "What is the difference between HBM and GDDR")
    s.current = engine._ask(q)
    engine.answer(
        s,
        "HBM is 3D-stacked DRAM on the GPU package with a very wide bus, over 3 TB/s on an H100, "
        "while GDDR is cheaper board-mounted memory around 1 TB/s used on consumer cards.",
    )
    s.turns[-1] = replace(s.turns[-1], late=True)
    engine.end(s)
    data = to_json(s, engine.bank, engine.rubric)
    assert data["questions_answered"] == 1 and data["questions_skipped"] >= 1
    answered = data["mean_score"]
    assert data["session_score"] == round(answered / (1 + data["questions_skipped"]), 2)
    md = to_markdown(s, engine.bank, engine.rubric)
    assert "counting them as 0" in md and "interview-ready" not in md
    assert "_Answered late, over the time limit._" in md.split("## Questions", 1)[1]
    assert any(q["late"] == [True] for q in data["questions"])
    assert 'then the supporting ones ("Also:")' in md or "## Study plan" not in md
