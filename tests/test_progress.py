"""Progress across sessions with the real engine, grader, index and store: what was missed
comes back for review on a spaced schedule, and each topic's score is kept over time."""

from __future__ import annotations

import pytest

from interviewer.controller import owner_of
from interviewer.errors import InterviewerError
from interviewer.progress import DAY, due, review_schedule


def test_missed_points_come_back_and_climb_the_boxes_until_learned(timed_controller):
    ctl, clock = timed_controller
    owner = owner_of("browser-a")
    assert ctl.history(owner).review.startswith("Nothing to review yet")
    with pytest.raises(InterviewerError, match="nothing is due"):
        ctl.review(owner, "rapid-fire", 3)

    view = ctl.start(owner, [], "easy", "rapid-fire", 1)
    qid = ctl.store.load(view.session_id).current.question_id  # type: ignore[union-attr]
    points = ctl.points_of(qid)
    assert points, "every built-in question has a rubric"
    ctl.answer(owner, view.session_id, "I don't know.", view.turns)
    # "I don't know" leaves every key point to learn, due at once.
    assert f"{len(points)} key point" in ctl.history(owner).review
    assert {
        p.point_id for p in due(review_schedule(ctl.sessions(owner), ctl.points_of), clock.t)
    } == {k.id for k in points}

    model_answer = ctl.engine.rubric(ctl.engine.bank.get(qid)).model_answer  # type: ignore[arg-type,union-attr]
    learned: set[str] = set()
    for round_ in range(1, 6):
        clock.t += 60
        view = ctl.review(owner, "rapid-fire", 5)
        session = ctl.store.load(view.session_id)
        assert session is not None and session.plan.questions == (qid,)
        assert session.current is not None and session.current.question_id == qid
        view = ctl.answer(owner, view.session_id, model_answer, view.turns)
        assert not view.active  # one question due: the review is over
        schedule = {p.point_id: p for p in review_schedule(ctl.sessions(owner), ctl.points_of)}
        covered = {k.id for k in points} - set(schedule) - learned
        if round_ < 5:
            climbed = [p for p in schedule.values() if p.box == round_]
            assert climbed, "the model answer covers some key points"
            assert all(p.due_at > clock.t for p in climbed)  # not due again straight away
            assert "come back later" in ctl.history(owner).review
            clock.t = max(p.due_at for p in climbed) + 1  # wait until they are due again
        else:
            learned |= covered
    # Covered in every box: learned and out of the schedule; the rest are still there.
    assert learned and all(p.box == 0 for p in review_schedule(ctl.sessions(owner), ctl.points_of))


def test_each_topic_is_scored_session_by_session(timed_controller):
    ctl, clock = timed_controller
    owner = owner_of("browser-b")
    for answer in ("I don't know.", None):
        view = ctl.start(owner, ["memory"], "easy", "rapid-fire", 1)
        session = ctl.store.load(view.session_id)
        assert session is not None and session.current is not None
        q = ctl.engine.bank.get(session.current.question_id)
        rubric = ctl.engine.rubric(q)  # type: ignore[arg-type]
        ctl.answer(owner, view.session_id, answer or rubric.model_answer, view.turns)  # type: ignore[union-attr]
        clock.t += DAY
    rows = ctl.history(owner).progress
    memory = [r for r in rows if r["topic"] == "memory"]
    assert [r["session"] for r in memory] == [1, 2]
    assert memory[0]["score"] == 0 and memory[1]["score"] >= 3
    assert {r["topic"] for r in rows} == {"memory"}  # only the topics chosen
    # Weak across sessions, counted per question as the reports count them.
    assert f"memory ({(memory[0]['score'] + memory[1]['score']) / 2}/5 over 2 questions)" in (
        ctl.history(owner).weak
    )
    # On the page, sessions are categories in their order: as numbers, two sessions drew
    # ticks "1, 2, 2" (the axis put a tick at 1.5, a trial's screenshot, stop 65).
    from interviewer.page_handlers import Handlers

    plot = Handlers(ctl).past(owner)[2]
    assert plot["sort"] == ["1", "2"] and list(plot["value"]["session"]) == ["1", "2"]


def test_an_open_questions_points_are_not_due_until_it_closes(timed_controller):
    """A helper's trial (stop 41): "N key points you missed before are due for review" counted
    the question whose follow-up was still pending."""
    ctl, _ = timed_controller
    owner = owner_of("browser-c")
    view = ctl.start(owner, ["memory"], "easy", "phone screen", 2)
    session = ctl.store.load(view.session_id)
    qid = session.current.question_id
    # A wrong answer: the phone screen follows it up, so the question stays open.
    wrong = ctl.engine.rubric(ctl.engine.bank.get(qid)).misconceptions[0].text
    view = ctl.answer(owner, view.session_id, wrong, view.turns)
    session = ctl.store.load(view.session_id)
    assert session.current is not None and session.current.question_id == qid
    assert session.current.kind == "follow_up"
    assert not [
        p for p in review_schedule(ctl.sessions(owner), ctl.points_of) if p.question_id == qid
    ]
    ctl.command(owner, view.session_id, "skip")
    assert [p for p in review_schedule(ctl.sessions(owner), ctl.points_of) if p.question_id == qid]


def test_topics_tied_in_a_session_are_drawn_apart():
    """A trial's plot (stop 66) showed one circle for two topics both at 4 in a session: the
    second was hidden. Ties are moved apart on the plot; scores and lone points stay exact."""
    from interviewer.progress import TIE_STEP, spread

    rows = spread(
        [
            {"session": 1, "topic": "memory", "score": 4.0},
            {"session": 1, "topic": "kernels", "score": 4.0},
            {"session": 1, "topic": "networking", "score": 2.5},
            {"session": 2, "topic": "memory", "score": 4.0},
        ]
    )
    shown = {(r["session"], r["topic"]): r["shown"] for r in rows}
    assert shown[1, "memory"] != shown[1, "kernels"]
    assert abs(shown[1, "memory"] - shown[1, "kernels"]) == pytest.approx(TIE_STEP)
    assert (shown[1, "memory"] + shown[1, "kernels"]) / 2 == pytest.approx(4.0)
    assert shown[1, "networking"] == 2.5 and shown[2, "memory"] == 4.0
    assert [r["score"] for r in rows] == [4.0, 4.0, 2.5, 4.0]
