"""The page's controller with the real engine, grader, index and SQLite store: one answer per
turn, and sessions that only their own browser can use."""

from __future__ import annotations

import random
import threading

import pytest

from interviewer.controller import Controller, owner_of
from interviewer.errors import InputError, InterviewerError
from interviewer.grader import make_grader
from interviewer.interview import Engine
from interviewer.store import Store

ANSWER = "HBM is stacked memory on the package with far more bandwidth than GDDR, which is cheaper."


@pytest.fixture()
def controller(built_index, tmp_path):
    settings, index = built_index
    engine = Engine(
        index.bank,
        make_grader("offline", settings, index=index),
        index,
        settings,
        lambda: 1000.0,
        random.Random(3),
    )
    return Controller(settings, engine, Store(tmp_path / "sessions.sqlite3"), None, "offline")


def test_four_simultaneous_answers_to_one_turn_store_one_and_refuse_the_rest(controller):
    owner = owner_of("browser-a")
    view = controller.start(owner, [], "easy", "deep dive", 3)
    start = threading.Barrier(4)
    outcomes: list[object] = []

    def send() -> None:
        start.wait()
        try:
            outcomes.append(controller.answer(owner, view.session_id, ANSWER, view.turns))
        except InterviewerError as e:
            outcomes.append(str(e))

    threads = [threading.Thread(target=send) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    graded = [o for o in outcomes if not isinstance(o, str)]
    refused = [o for o in outcomes if isinstance(o, str)]
    assert len(graded) == 1 and len(refused) == 3
    assert all("already" in r for r in refused)
    stored = controller.store.load(view.session_id)
    assert stored is not None and len(stored.turns) == 1 and stored.turns[0].answer == ANSWER


def test_a_double_submit_after_the_grade_is_refused_not_graded_again(controller):
    owner = owner_of("browser-a")
    view = controller.start(owner, [], "easy", "deep dive", 3)
    controller.answer(owner, view.session_id, ANSWER, view.turns)
    with pytest.raises(InterviewerError, match="already answered"):
        controller.answer(owner, view.session_id, ANSWER, view.turns)
    stored = controller.store.load(view.session_id)
    assert stored is not None and len(stored.turns) == 1


def test_an_answer_is_shown_as_typed_not_as_markdown(controller):
    """Found in the browser: "~160 MB/s per node ... ~20 GB/s" was struck through; the answer
    is stored as typed and shown with its Markdown characters escaped."""
    from interviewer.controller import as_typed

    typed = "About ~160 MB/s per node but ~20 GB/s in all; no_sync() on 2*3 ranks."
    assert as_typed(typed) == (
        "About \\~160 MB/s per node but \\~20 GB/s in all; no\\_sync() on 2\\*3 ranks."
    )
    owner = owner_of("browser-a")
    view = controller.start(owner, [], "easy", "deep dive", 3)
    controller.answer(owner, view.session_id, typed, view.turns)
    stored = controller.store.load(view.session_id)
    assert stored is not None and stored.turns[0].answer == typed
    shown = controller.open(owner, view.session_id).chat
    assert {"role": "user", "content": as_typed(typed)} in shown


def test_an_answer_over_the_limit_is_refused_before_it_is_shown_as_graded(controller):
    owner = owner_of("browser-a")
    view = controller.start(owner, [], "easy", "phone screen", 2)
    stream = controller.answer_stream(owner, view.session_id, "word " * 1800, view.turns)
    with pytest.raises(InputError, match="the limit is 8000"):
        next(stream)  # nothing yielded first: no "Grading…" for an answer never graded
    assert controller.stored(owner, view.session_id).chat == view.chat


def test_another_browser_is_answered_as_if_the_session_did_not_exist(controller):
    view = controller.start(owner_of("browser-a"), [], "easy", "deep dive", 3)
    intruder = owner_of("browser-b")
    for call in (
        lambda: controller.answer(intruder, view.session_id, ANSWER),
        lambda: controller.command(intruder, view.session_id, "hint"),
        lambda: controller.report(intruder, view.session_id),
    ):
        with pytest.raises(InterviewerError, match="no interview in progress"):
            call()
    assert controller.history(intruder).sessions == []
    assert controller.store.load(view.session_id).turns == []  # type: ignore[union-attr]


def test_opening_an_id_says_the_same_whether_it_is_another_browsers_or_none(controller):
    """A user trial (ui40): opening another browser's id, or a mistyped one, said "no interview
    in progress: press Start". One plain answer for both, and the owner opens it."""
    mine = owner_of("browser-a")
    view = controller.start(mine, [], "easy", "deep dive", 3)
    said = set()
    for owner, typed in ((owner_of("browser-b"), view.session_id), (mine, "no-such-id")):
        with pytest.raises(InterviewerError, match="No session with that id in this browser") as e:
            controller.open(owner, typed)
        said.add(str(e.value))
    assert len(said) == 1
    with pytest.raises(InterviewerError, match="Past sessions lists them"):
        controller.open(mine, "  ")
    assert controller.open(mine, f" {view.session_id} ").session_id == view.session_id
    with pytest.raises(InterviewerError, match="No report yet"):
        controller.report(mine, "")


def test_the_login_file_is_read_strictly(tmp_path):
    from interviewer.config import read_logins
    from interviewer.errors import InputError

    good = tmp_path / "logins"
    good.write_text("# team\nana:s3cret:with-colon\n\nbo:pw\n", "utf-8")
    assert read_logins(good) == [("ana", "s3cret:with-colon"), ("bo", "pw")]
    bad = tmp_path / "bad"
    bad.write_text("ana:pw\njust-a-name\n", "utf-8")
    with pytest.raises(InputError, match="line 2: expected user:password"):
        read_logins(bad)
    with pytest.raises(InputError, match="cannot read"):
        read_logins(tmp_path / "missing")


def test_rapid_fire_shows_the_time_left_and_marks_a_late_answer(timed_controller):
    ctl, clock = timed_controller
    owner = owner_of("browser-a")
    view = ctl.start(owner, [], "easy", "rapid-fire", 2)
    assert '<span class="countdown">60 s left</span>' in view.status
    clock.t += 66  # answered after 66 s against a 60 s limit
    view = ctl.answer(owner, view.session_id, ANSWER, view.turns)
    assert "Late: over the time limit." in view.chat[2]["content"]
    assert "Answered late: over the 60-second limit." in view.card
    assert '<span class="countdown">60 s left</span>' in view.status  # the next question's clock
    history = ctl.history(owner).sessions
    score = int(view.chat[2]["content"].split("/5")[0].split()[-1])
    # Scored as the report scores it: per question (one so far), not per turn.
    assert history[0][0] == view.session_id and history[0][2:] == ["active", 1, 0, score]


def test_past_sessions_count_a_skipped_question_as_the_report_does(controller):
    """A trial (stop 67): a session with one question skipped of four was listed as "4
    questions, mean 4", while its report said "3 questions (1 skipped)"."""
    owner = owner_of("browser-a")
    view = controller.start(owner, [], "easy", "rapid-fire", 2)
    view = controller.command(owner, view.session_id, "skip")
    view = controller.answer(owner, view.session_id, ANSWER, view.turns)
    (row,) = controller.history(owner).sessions
    session = controller.store.load(view.session_id)
    answered = [t.grade.score for t in session.turns if t.grade is not None]
    assert row[3:] == [2, 1, answered[0]]


def test_past_sessions_load_an_ended_session_once(controller):
    owner = owner_of("browser-a")
    first = controller.start(owner, [], "easy", "rapid-fire", 1)
    controller.answer(owner, first.session_id, ANSWER, first.turns)
    assert controller.store.load(first.session_id).status == "ended"
    loaded: list[str] = []
    load = controller.store.load
    controller.store.load = lambda sid: loaded.append(sid) or load(sid)
    second = controller.start(owner, [], "easy", "rapid-fire", 2)
    controller.answer(owner, second.session_id, ANSWER, second.turns)
    before = controller.history(owner)
    controller.history(owner)
    # The ended session came from the store once (the first history()); the live one each time.
    assert loaded.count(first.session_id) <= 1 and loaded.count(second.session_id) >= 2
    again = controller.history(owner)
    assert again.sessions == before.sessions and len(again.sessions) == 2


def test_the_score_so_far_is_the_questions_and_a_closed_question_keeps_its_history(controller):
    """A reply is graded on the point its follow-up probed; the chat shows the question's score
    over the answer and replies so far, and what was shown for a turn stays once the question
    closes (issue 14: "Score so far 5/5" after a reply, then 4/5, and old bubbles rewritten)."""
    from interviewer.session import question_result

    owner = owner_of("browser-a")
    view = controller.start(owner, [], "easy", "deep dive", 2)
    asked = controller.store.load(view.session_id).current
    rubric = controller.engine.rubric(controller.engine.bank.get(asked.question_id))
    points = [k.text for k in rubric.key_points]
    # Half a point first (partial, on topic), then points as replies, then "I don't know".
    shown: dict[int, str] = {}
    for text in [" ".join(points[0].split()[:6]), *points[:2], "I don't know"]:
        view = controller.answer(owner, view.session_id, text, view.turns)
        bubbles = [m["content"] for m in view.chat if m["content"].startswith("Score")]
        for n, said in shown.items():
            assert bubbles[n] == said  # history is never rewritten
        shown[len(bubbles) - 1] = bubbles[-1]
        if not view.active:
            break
    session = controller.store.load(view.session_id)
    qid = session.turns[0].prompt.question_id
    ours = [n for n, t in enumerate(session.turns) if t.prompt.question_id == qid]
    assert len(ours) >= 2, "a partial answer in a deep dive gets a follow-up"
    for n in ours:
        result = question_result(session.turns[: n + 1], qid)
        prefix = "Score so far" if n != ours[-1] else "Score"
        assert shown[n].startswith(f"{prefix} {result.score}/5")


def test_hints_stay_in_the_chat_and_a_replys_flag_is_named_as_the_replys(controller):
    """Issue 14's browser trial: a hint bubble left the chat once the answer was sent, and
    "Marked as no attempt" stood beside the question's 3/5 after an "I don't know" reply."""
    owner = owner_of("browser-a")
    view = controller.start(owner, [], "easy", "deep dive", 1)
    hint = controller.command(owner, view.session_id, "hint").chat[-1]["content"]
    assert hint.startswith("Hint 1 of")
    asked = controller.store.load(view.session_id).current
    rubric = controller.engine.rubric(controller.engine.bank.get(asked.question_id))
    partial = " ".join(rubric.key_points[0].text.split()[:6])  # on topic, far from complete
    view = controller.answer(owner, view.session_id, partial, view.turns)
    chat = [m["content"] for m in view.chat]
    assert hint in chat and chat.index(hint) < chat.index(partial)
    session = controller.store.load(view.session_id)
    assert session.current is not None and session.current.kind == "follow_up"
    view = controller.answer(owner, view.session_id, "I don't know", view.turns)
    assert "Your last reply: marked as no attempt" in view.card
    assert "Delivery" not in view.card  # nothing to say of how "I don't know" was said
    assert hint in [m["content"] for m in view.chat]


def test_the_status_line_shows_the_difficulty_of_the_question_on_screen(controller):
    """A user trial (stop 64): difficulty moved easy -> medium -> hard, and the page never said."""
    owner = owner_of("browser-a")
    view = controller.start(owner, [], "hard", "phone screen", 2)
    session = controller.store.load(view.session_id)
    assert session is not None and session.current is not None
    assert view.status.endswith(f"question 1/2 · {session.current.difficulty}")


def test_the_buttons_wait_while_an_answer_is_graded_and_come_back_with_the_grade(controller):
    """Found in the browser: Send stayed enabled while "Grading…" was shown."""
    from interviewer.page_handlers import show

    owner = owner_of("browser-a")
    view = controller.start(owner, [], "easy", "phone screen", 2)
    views = list(controller.answer_stream(owner, view.session_id, ANSWER, view.turns))
    assert views[0].busy and views[0].chat[-1]["content"] == "Grading…"
    assert not views[-1].busy and views[-1].active
    send_while_grading, send_after = show(views[0])[8], show(views[-1])[8]
    assert send_while_grading["interactive"] is False
    assert send_after["interactive"] is True


def test_starting_another_interview_ends_the_one_on_screen_with_its_question_skipped(controller):
    """A trial (stop 66) pressed Start mid-interview: the old session stayed "active" in Past
    sessions, its rapid-fire clock run down, and counted as a session of its own."""
    owner = owner_of("browser-a")
    first = controller.start(owner, [], "easy", "rapid-fire", 3)
    controller.answer(owner, first.session_id, ANSWER, first.turns)
    on_screen = controller.store.load(first.session_id).current
    second = controller.start(owner, [], "easy", "rapid-fire", 3)
    assert controller.close(owner, first.session_id)
    old = controller.store.load(first.session_id)
    assert old.status == "ended" and old.current is None
    assert old.turns[-1].skipped and old.turns[-1].prompt == on_screen
    assert len(old.turns) == 2  # the answer kept, the question on screen skipped
    # Only this browser's, only an active one, never twice, never the new one by mistake.
    assert not controller.close(owner_of("browser-b"), second.session_id)
    assert not controller.close(owner, first.session_id)
    assert controller.store.load(second.session_id).status == "active"


def test_an_interview_whose_answer_is_being_graded_is_not_ended(controller):
    owner = owner_of("browser-a")
    view = controller.start(owner, [], "easy", "phone screen", 3)
    controller._busy.add(view.session_id)
    assert not controller.close(owner, view.session_id)
    assert controller.store.load(view.session_id).status == "active"
