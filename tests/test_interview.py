"""The interview engine with the offline grader, a fake clock and seeded randomness."""

from __future__ import annotations

import random

import pytest

from interviewer.errors import InputError
from interviewer.grader import make_grader
from interviewer.interview import Engine, Plan
from interviewer.store import Store

GOOD_HBM = (
    "HBM is 3D-stacked DRAM on the GPU package with a very wide bus, 3+ TB/s on H100; "
    "GDDR is conventional graphics memory, about 1 TB/s but much cheaper, so data "
    "center GPUs use HBM and consumer cards use GDDR."
)


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture()
def engine(built_index):
    settings, index = built_index
    return Engine(
        index.bank,
        make_grader("offline", settings, index=index),
        index,
        settings,
        Clock(),
        random.Random(7),
    )


def test_start_follows_plan_topics_and_difficulty(engine):
    s = engine.start(Plan(("memory",), "easy", 4))
    q = engine.bank.get(s.current.question_id)
    assert "memory" in q.topics and q.difficulty == "easy" and q.technical


def test_weak_answer_gets_a_follow_up_on_a_missed_point_then_moves_on(engine):
    s = engine.start(Plan(("memory",), "easy", 3))
    first = s.current
    out = engine.answer(s, "It is some kind of memory.")
    assert out.turn.grade.score <= 3 and out.decision == "follow-up"
    assert out.next.kind == "follow_up" and out.next.question_id == first.question_id
    assert out.next.focus in out.turn.grade.missed
    assert out.next.focus not in out.next.text  # the reference claim is not revealed
    out2 = engine.answer(s, "Not sure what else.")
    assert out2.decision in {"same", "easier", "harder"} and out2.next.kind == "question"
    assert out2.next.question_id != first.question_id  # phone screen: one follow-up at most


def test_strong_answer_moves_difficulty_up(engine):
    s = engine.start(Plan(("memory",), "easy", 3))
    hbm = next(
        q
        for q in engine.bank.questions
        if q.text.startswith("What is the difference between HBM and GDDR")
    )
    s.current = engine._ask(hbm)
    out = engine.answer(s, GOOD_HBM)
    assert out.turn.grade.score >= 4 and out.decision == "harder"
    assert out.next.difficulty in {"medium", "hard"}


def test_commands_and_no_repeats(engine):
    s = engine.start(Plan((), "medium", 4, "rapid-fire"))
    asked = [s.current.question_id]
    assert engine.hint(s).startswith("Hint") and s.hints == 1
    out = engine.skip(s)
    assert out.turn.skipped and out.turn.hints == 1 and out.next is not None
    asked.append(out.next.question_id)
    engine.answer(s, "I don't know")  # rapid-fire: no follow-ups
    asked.append(s.current.question_id)
    assert len(set(asked)) == len(asked)
    engine.end(s)
    assert s.status == "ended"
    with pytest.raises(InputError, match="ended"):
        engine.answer(s, "more")


def test_rapid_fire_marks_late_answers(engine):
    s = engine.start(Plan((), "easy", 2, "rapid-fire"))
    engine.clock.t += 75
    out = engine.answer(s, "A guess about bandwidth.")
    assert out.turn.late


def test_interview_ends_after_planned_length(engine):
    s = engine.start(Plan((), "easy", 2, "rapid-fire"))
    engine.answer(s, "idk")
    out = engine.answer(s, "idk")
    assert out.next is None and out.decision == "end" and s.status == "ended"


def test_sessions_survive_a_restart_of_the_store(engine, tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    s = engine.start(Plan(("memory",), "easy", 3))
    store.save(s)
    engine.answer(s, "It is some kind of memory.")
    store.save(s)
    store.close()
    again = Store(tmp_path / "s.sqlite3").load(s.id)
    assert again is not None and len(again.turns) == 1
    assert again.current == s.current and again.followups_here == s.followups_here
    assert again.turns[0].grade.score == s.turns[0].grade.score
    assert again.turns[0].grade.references  # the passages relied on are kept
    engine.answer(again, "More detail about bandwidth and cost.")  # carries on
    Store(tmp_path / "s.sqlite3").save(again)
    assert len(Store(tmp_path / "s.sqlite3").load(s.id).turns) == 2


def test_llm_follow_up_is_streamed_from_the_prompt_and_labelled(built_index):
    from interviewer.config import Settings
    from interviewer.interview import LLMFollowUps
    from interviewer.llm import OpenAICompatible
    from tests.fake_llm import FakeLLM, completion

    settings, index = built_index
    asked = "Which memory would you pick for a consumer card, and why?"
    with FakeLLM(default=(200, completion(asked))) as llm:
        chat = OpenAICompatible(Settings(llm_base_url=llm.url, llm_model="fake-model"))
        engine = Engine(
            index.bank,
            make_grader("offline", settings, index=index),
            index,
            settings,
            Clock(),
            random.Random(7),
            LLMFollowUps(chat),
        )
        s = engine.start(Plan(("memory",), "easy", 3))
        hbm = next(
            q
            for q in engine.bank.questions
            if q.text.startswith("What is the difference between HBM and GDDR")
        )
        s.current = engine._ask(hbm)
        pieces: list[str] = []
        out = engine.answer(s, "HBM is stacked memory.", on_text=pieces.append)
    assert out.decision == "follow-up" and out.next.text == asked and out.next.writer == "llm"
    assert len(pieces) > 3 and pieces[-1] == asked  # streamed word by word
    req = llm.requests[0]
    assert req["stream"] is True and "Never state" in req["messages"][0]["content"]
    assert out.next.focus in req["messages"][1]["content"]  # built from the missed point
    assert "<answer>\nHBM is stacked memory.\n</answer>" in req["messages"][1]["content"]


def test_llm_follow_up_falls_back_to_offline_wording_and_says_so(built_index):
    from interviewer.config import Settings
    from interviewer.interview import LLMFollowUps
    from interviewer.llm import OpenAICompatible

    settings, index = built_index
    chat = OpenAICompatible(
        Settings(llm_base_url="http://127.0.0.1:9/v1", llm_max_retries=0, llm_timeout_s=1.0)
    )
    engine = Engine(
        index.bank,
        make_grader("offline", settings, index=index),
        index,
        settings,
        Clock(),
        random.Random(7),
        LLMFollowUps(chat),
    )
    s = engine.start(Plan(("memory",), "easy", 3))
    out = engine.answer(s, "It is some kind of memory.")
    assert out.decision == "follow-up" and out.next.writer == "offline"
