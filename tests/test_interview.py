"""The interview engine with the offline grader, a fake clock and seeded randomness."""

from __future__ import annotations

import random
import re

import pytest

from interviewer.card import grade_card
from interviewer.errors import InputError
from interviewer.grader import make_grader
from interviewer.interview import Engine
from interviewer.records import PARTLY_SAID
from interviewer.session import Plan, Prompt, Turn, question_result
from interviewer.store import Store
from tests.conftest import Clock

GOOD_HBM = (
    "HBM is 3D-stacked DRAM on the GPU package with a very wide bus, 3+ TB/s on H100; "
    "GDDR is conventional graphics memory, about 1 TB/s but much cheaper, so data "
    "center GPUs use HBM and consumer cards use GDDR."
)


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


def hbm_question(engine):
    return next(
        q
        for q in engine.bank.questions
        if q.text.startswith("What is the difference between HBM and GDDR")
    )


def test_partial_answer_gets_the_rubric_probe_and_a_correct_reply_raises_the_result(engine):
    s = engine.start(Plan(("memory",), "easy", 3, "deep dive"))
    q = hbm_question(engine)
    s.current = engine._ask(q)
    rubric = engine.rubric(q)
    out = engine.answer(s, "HBM is 3D-stacked memory on the package with far more bandwidth.")
    assert out.decision == "follow-up" and out.next.kind == "follow_up"
    left = [c for c in out.turn.grade.claims if c.verdict != "covered"]
    probed = rubric.point(out.next.focus)
    assert probed.id in {c.point_id for c in left} and out.next.text == probed.probe
    # What the answer shows no sign of comes before what it partly said ("3D-stacked memory on
    # the package" for the stacking point), core first (tests/test_probes.py).
    clear = [c for c in left if c.credit < PARTLY_SAID]
    assert probed.id == (clear or left)[0].point_id
    first = question_result(s.turns, q.id)
    out2 = engine.answer(s, probed.text)  # a correct reply, as the rubric states it
    assert "off_topic" not in out2.turn.grade.flags  # a reply to the probe is on topic
    # Graded on the point it probes; other points it states follow, never as missed.
    assert out2.turn.grade.claims[0].point_id == probed.id
    assert all(c.verdict != "missed" for c in out2.turn.grade.claims[1:])
    assert out2.turn.grade.claims[0].verdict == "covered"
    after = question_result(s.turns, q.id)
    covered = {c.point_id for c in after.claims if c.verdict == "covered"}
    before = {c.point_id for c in first.claims if c.verdict == "covered"}
    assert probed.id in covered and probed.id not in before  # coverage rose
    assert after.score >= first.score
    # The question's feedback speaks of the whole question, not of the last reply alone.
    assert f"You covered {len(covered)} of {len(after.claims)} key points" in after.feedback
    assert out2.turn.grade.feedback != after.feedback
    # Deep dive: a second follow-up, never on the point already probed.
    if out2.decision == "follow-up":
        assert out2.next.focus != probed.id


def fusion_question(engine):
    return next(
        q for q in engine.bank.questions if q.text == "What is kernel fusion and why does it help?"
    )


def test_a_reply_that_states_another_missed_point_is_credited_with_it(engine):
    """A helper's trial (stop 36): a reply was graded on the probed point alone, so another
    point it stated stayed missed and could be the next follow-up. A reply is now also read
    against the question's other points: what it states counts for the question, without
    raising the reply's own score, and is not asked about again."""
    s = engine.start(Plan(("memory",), "easy", 3, "deep dive"))
    q = fusion_question(engine)
    s.current = engine._ask(q)
    rubric = engine.rubric(q)
    out = engine.answer(s, "Kernel fusion merges several elementwise ops into one kernel.")
    assert out.decision == "follow-up"
    covered = {c.point_id for c in out.turn.grade.claims if c.verdict == "covered"}
    other = next(k for k in rubric.ordered() if k.id not in covered and k.id != out.next.focus)
    out2 = engine.answer(s, other.text)
    reply = out2.turn.grade
    assert reply.claims[0].point_id == out.next.focus and reply.claims[0].verdict != "covered"
    assert any(c.point_id == other.id and c.verdict == "covered" for c in reply.claims[1:])
    assert reply.score <= 2  # it did not answer what it was asked
    after = question_result(s.turns, q.id)
    assert other.id in {c.point_id for c in after.claims if c.verdict == "covered"}
    assert out2.next is None or out2.next.focus != other.id


def test_a_wrong_claim_in_a_reply_is_named_whatever_point_was_probed(engine):
    """The same trial: a reply that said fusion saves FLOPs (a misconception about another of
    the question's points) scored 2 with nothing wrong named, as it was read against the
    probed point only."""
    s = engine.start(Plan(("memory",), "easy", 3, "deep dive"))
    q = fusion_question(engine)
    s.current = engine._ask(q)
    out = engine.answer(s, "Kernel fusion merges several elementwise ops into one kernel.")
    assert out.decision == "follow-up" and out.next.focus != "memory-roundtrips"
    out2 = engine.answer(
        s, "Fusion helps mainly because the GPU computes fewer FLOPs when the ops are fused."
    )
    reply = out2.turn.grade
    assert reply.score <= 1
    assert any("fewer FLOPs" in w and "memory round-trips" in w for w in reply.wrong_claims)
    after = question_result(s.turns, q.id)
    assert "memory-roundtrips" in {c.point_id for c in after.claims if c.verdict == "contradicted"}


WRONG_HBM = (
    "HBM is the slower, cheaper option: it has lower bandwidth than GDDR. "
    "GDDR6X is what datacenter GPUs like the H100 use."
)


def test_a_wrong_claim_is_challenged_first_and_a_correction_counts_as_one_error(engine):
    s = engine.start(Plan(("memory",), "easy", 3, "phone screen"))  # one follow-up
    q = hbm_question(engine)
    s.current = engine._ask(q)
    rubric = engine.rubric(q)
    out = engine.answer(s, WRONG_HBM)
    first = question_result(s.turns, q.id)
    wrong = [c.point_id for c in first.claims if c.verdict == "contradicted"]
    assert wrong and first.score <= 1
    # The follow-up challenges a wrong point before asking for a missed one.
    assert out.decision == "follow-up" and out.next.focus in wrong
    out2 = engine.answer(s, rubric.point(out.next.focus).text)  # put right, as the rubric says
    assert out2.turn.grade.claims[0].verdict == "covered"
    after = question_result(s.turns, q.id)
    assert out.next.focus in {c.point_id for c in after.corrected}
    assert out.next.focus in {c.point_id for c in after.claims if c.verdict == "covered"}
    assert first.score <= after.score <= 3  # one notable error, put right when asked
    # The reply may put right more than the point it was asked about.
    n = len(after.corrected)
    assert f"corrected {n} wrong claim{'s' if n > 1 else ''} when asked" in after.feedback
    card, _ = grade_card(s, engine)  # the question is closed: the card says what was put right
    assert "**Corrected when asked**" in card and rubric.point(out.next.focus).text in card


def test_a_point_a_hint_already_asked_about_is_not_asked_again_as_a_follow_up(engine):
    s = engine.start(Plan(("gpu-architecture",), "easy", 3, "deep dive"))
    q = next(q for q in engine.bank.questions if q.text.startswith("What is a warp and why"))
    s.current = engine._ask(q)
    hints = [engine.hint(s) for _ in range(2)]
    assert "disagree on an if-statement" in hints[1]  # the hint that asks about divergence
    out = engine.answer(s, "A warp is a group of 32 threads executing one instruction in lockstep.")
    missed = {c.point_id for c in out.turn.grade.claims if c.verdict == "missed"}
    assert "divergence" in missed  # still missed, yet already asked about by the hint
    assert out.decision == "follow-up" and out.next.focus not in {"divergence", "definition"}
    # Without the hints the same answer is asked about divergence (the most important miss).
    s2 = engine.start(Plan(("gpu-architecture",), "easy", 3, "deep dive"))
    s2.current = engine._ask(q)
    out2 = engine.answer(s2, out.turn.answer)
    assert out2.next.focus == "divergence"


def test_hints_walk_the_ladder_and_never_repeat(engine):
    s = engine.start(Plan(("memory",), "easy", 3))
    q = engine.bank.get(s.current.question_id)
    ladder = engine.rubric(q).hints
    hints = [engine.hint(s) for _ in range(len(ladder) + 1)]
    assert [h.split(": ", 1)[1] for h in hints[:-1]] == list(ladder)
    assert len(set(hints)) == len(hints) and hints[-1].startswith("No more hints")


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
    from interviewer.followups import LLMFollowUps
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
    assert req["stream"] is True and "Ask, don't tell" in req["messages"][0]["content"]
    probe = engine.rubric(hbm).point(out.next.focus).probe
    assert probe in req["messages"][1]["content"]  # the rubric's probe, to reword
    assert "<answer>\nHBM is stacked memory.\n</answer>" in req["messages"][1]["content"]


def test_llm_follow_up_falls_back_to_offline_wording_and_says_so(built_index):
    from interviewer.config import Settings
    from interviewer.followups import LLMFollowUps
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
    s.current = engine._ask(hbm_question(engine))
    out = engine.answer(s, "HBM is stacked memory.")
    assert out.decision == "follow-up" and out.next.writer == "offline"


def test_the_report_studies_what_was_not_answered_and_speaks_of_questions(engine):
    from interviewer.report import to_json, to_markdown

    s = engine.start(Plan(("memory",), "easy", 2, "rapid-fire"))
    q = hbm_question(engine)
    s.current = engine._ask(q)
    engine.answer(s, "I don't know.")
    engine.skip(s)
    skipped = engine.bank.get(s.turns[-1].prompt.question_id)
    data = to_json(s, engine.bank, engine.rubric)
    md = to_markdown(s, engine.bank, engine.rubric)
    # "I don't know" and a skip: every key point of both questions is in the study plan.
    for question in (q, skipped):
        points = [k.text for k in engine.rubric(question).key_points]
        assert {p["point"] for p in data["study_plan"] if p["question"] == question.text} == set(
            points
        )
        assert f"**{question.text}**" in md and all(p in md for p in points)
    assert "**0 / 5** over 1 question (1 skipped; 0 / 5 counting them as 0)" in md  # not 0.0


def test_the_report_says_which_grader_gave_each_score(engine):
    """A helper's trial (stop 36): only the JSON said which grader scored; the Markdown and
    printable reports did not, and a session the LLM grader scored in part must say whose
    score is whose."""
    from dataclasses import replace

    from interviewer.report import printable_html, to_json, to_markdown

    s = engine.start(Plan(("memory",), "easy", 2, "rapid-fire"))
    s.current = engine._ask(hbm_question(engine))
    engine.answer(s, "HBM is 3D-stacked memory on the package with far more bandwidth.")
    md = to_markdown(s, engine.bank, engine.rubric)
    offline = "the offline grader on this computer (offline-linear-v4 + all-MiniLM-L6-v2"
    assert f"_Graded by {offline}" in md and "LLM" not in md
    assert "Graded by the offline grader" in printable_html(md, "report")
    # One turn graded by the LLM (a server that came back): each question names its grader.
    first = s.turns[0]
    assert first.grade is not None
    llm = replace(first.grade.provenance, grader="llm", model="Qwen3-8B", prompt_version="v3")
    s.turns[0] = replace(first, grade=replace(first.grade, provenance=llm))
    engine.answer(s, "I don't know.")
    data = to_json(s, engine.bank, engine.rubric)
    assert data["graded_by"] == ["the LLM grader (Qwen3-8B, prompt v3)", data["graded_by"][1]]
    md = to_markdown(s, engine.bank, engine.rubric)
    assert md.count("_Graded by the LLM grader (Qwen3-8B, prompt v3)._") == 1
    assert md.count(f"_Graded by {offline}") == 1


def test_a_hint_on_a_follow_up_is_about_the_point_it_probes(engine):
    s = engine.start(Plan(("memory",), "easy", 3, "deep dive"))
    q = hbm_question(engine)
    s.current = engine._ask(q)
    out = engine.answer(s, "HBM is 3D-stacked memory on the package with far more bandwidth.")
    assert out.next is not None and out.next.kind == "follow_up"
    rubric = engine.rubric(q)
    probed = next(k for k in rubric.key_points if k.id == out.next.focus)
    hints = [engine.hint(s) for _ in range(len(rubric.hints) + 1)]
    given = [h.split(": ", 1)[1] for h in hints[:-1]]
    assert sorted(given) == sorted(rubric.hints) and hints[-1].startswith("No more hints")

    def words(text: str) -> set[str]:
        return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3}

    def near(h: str) -> int:  # words shared with the point the follow-up probes
        return len(words(f"{probed.text} {probed.probe} {probed.label}") & words(h))

    assert near(given[0]) == max(near(h) for h in rubric.hints)


def test_a_follow_ups_hints_start_with_the_one_about_its_point(engine):
    """A browser trial (stop 62): the OOM question's follow-up on gradient accumulation gave
    "Go through what occupies memory ..." and "Read the OOM message closely ..." before
    "Think about trading compute or steps for memory." (shared words were counted unstemmed,
    "what" and "about" among them)."""
    q = next(q for q in engine.bank.questions if "CUDA out-of-memory" in q.text)
    probe = Prompt(q.id, "How can you shrink the batch?", "follow_up", q.difficulty, "grad-accum")
    assert engine.hint_ladder(probe)[0] == "Think about trading compute or steps for memory."
    asked = Prompt(q.id, q.text, "question", q.difficulty)
    assert engine.hint_ladder(asked) == engine.rubric(q).hints  # the question's own order


def test_a_hint_shown_on_the_question_is_not_shown_again_on_its_follow_up(engine):
    """A browser trial (stop 65): "Hint 1 of 3: Think about how to generate years of robot
    experience ..." came before the answer and again, as hint 1, on the follow-up."""
    q = next(q for q in engine.bank.questions if "CUDA out-of-memory" in q.text)
    hints = engine.rubric(q).hints
    asked = Prompt(q.id, q.text, "question", q.difficulty)
    earlier = [Turn(asked, "Lower the batch size.", None, 0.0, hints=1)]
    probe = Prompt(q.id, "How can you shrink the batch?", "follow_up", q.difficulty, "grad-accum")
    ladder = engine.hint_ladder(probe, earlier)
    assert hints[0] not in ladder and len(ladder) == len(hints) - 1
    assert engine.hints_given(probe, 1, earlier)[0] == f"Hint 1 of {len(ladder)}: {ladder[0]}"
    assert engine.hint_ladder(probe)[0] == "Think about trading compute or steps for memory."


class CountingEmbedder:
    """The real embedder, noting every text it embeds whole (token vectors aside)."""

    def __init__(self, inner):
        self.inner, self.name, self.texts = inner, inner.name, []

    def embed(self, texts):
        self.texts.extend(texts)
        return self.inner.embed(texts)

    def embed_spans_tokens(self, texts, spans):
        self.texts.extend(texts)
        return self.inner.embed_spans_tokens(texts, spans)

    def piece_ids(self, words):
        return self.inner.piece_ids(words)

    def embed_tokens(self, texts):
        return self.inner.embed_tokens(texts)


def test_a_question_is_prepared_while_the_candidate_thinks(built_index):
    from interviewer.offline import OfflineGrader

    settings, index = built_index
    counting = CountingEmbedder(index.embedder)
    queued: list = []
    engine = Engine(
        index.bank,
        OfflineGrader(counting, index=index),
        index,
        settings,
        Clock(),
        random.Random(7),
        background=queued.append,
    )
    s = engine.start(Plan(("memory",), "easy", 3))
    q = hbm_question(engine)
    points = [k.text for k in engine.rubric(q).key_points]
    s.current = engine._ask(q)
    queued.pop()()  # the candidate reads the question: its warm-up runs
    assert set(points) <= set(counting.texts)
    counting.texts.clear()
    answer = "HBM is stacked DRAM beside the GPU. It has a very wide bus."
    out = engine.answer(s, answer)
    # The turn embedded the answer (in one pass: its sentences are spans of it), and alone
    # only its sentences that decided no verdict (the padding model reads those) and what is
    # left of a sentence once a segment is set aside (its full stop kept); the next prompt's
    # warm-up is queued for the candidate's thinking time.
    assert counting.texts[0] == answer and out.turn.grade.claims
    assert all(t.rstrip(".") in answer and t != answer for t in counting.texts[1:]), counting.texts
    assert out.next is not None and len(queued) == 2

    # Answered before its warm-up started, a prompt is prepared in the turn, and once only.
    other = next(x for x in engine.bank.technical() if x.id != q.id and engine.rubric(x))
    s.current = engine._ask(other)
    counting.texts.clear()
    engine.answer(s, "I would measure it first.")
    first = list(counting.texts)
    assert set(k.text for k in engine.rubric(other).key_points) <= set(first)
    counting.texts.clear()
    queued[2]()  # the skipped-ahead warm-up finds the work claimed and does nothing
    assert counting.texts == []


def test_a_reply_is_graded_on_its_point_when_reading_it_against_the_rest_fails(built_index):
    """The second reading of a reply (against the question's other points) goes to the LLM in
    the same batch; if that batch fails, the reply is graded on its own point alone."""
    from interviewer.errors import LLMError

    settings, index = built_index
    offline = make_grader("offline", settings, index=index)

    class Flaky:
        name = "offline"
        batched = True

        def grade_many(self, items):
            if len(items) > 1:
                raise LLMError("the server returned invalid JSON twice")
            return offline.grade_many(items)

        def warm(self, question, refs):
            offline.warm(question, refs)

    engine = Engine(index.bank, Flaky(), index, settings, Clock(), random.Random(7))
    s = engine.start(Plan(("memory",), "easy", 3, "deep dive"))
    q = fusion_question(engine)
    s.current = engine._ask(q)
    out = engine.answer(s, "Kernel fusion merges several elementwise ops into one kernel.")
    assert out.decision == "follow-up"
    point = engine.rubric(q).point(out.next.focus)
    reply = engine.answer(s, point.text).turn.grade
    assert [c.point_id for c in reply.claims] == [point.id] and reply.claims[0].verdict == "covered"


def test_a_question_capped_by_a_corrected_slip_does_not_say_points_are_missing():
    """A browser trial (stop 40): every point covered after the replies, the score capped at 3
    for the wrong claim put right, and the card said "important points are missing. You
    covered 6 of 6 key points"."""
    from interviewer.records import ClaimResult, Grade, Provenance
    from interviewer.session import Prompt, Turn

    def turn(kind, *claims):
        covered = tuple(c.point for c in claims if c.verdict == "covered")
        grade = Grade(
            5 if len(covered) == 2 else 1, covered, (), (), "", (), (), 0.9,
            Provenance("offline", "m"), claims=claims,
        )  # fmt: skip
        return Turn(Prompt("q1", "Q?", kind, "easy"), "an answer", grade, 0.0)

    a = ClaimResult("Point A.", "covered", point_id="a")
    b_wrong = ClaimResult("Point B.", "contradicted", evidence="B is not so.", point_id="b")
    b_right = ClaimResult("Point B.", "covered", point_id="b")
    result = question_result([turn("question", a, b_wrong), turn("follow_up", b_right)], "q1")
    assert result.score == 3 and [c.point_id for c in result.corrected] == ["b"]
    assert "points are missing" not in result.feedback
    assert "one notable error" in result.feedback and "covered 2 of 2" in result.feedback


def test_a_reply_that_adds_a_point_raises_the_questions_score():
    """A trial (stop 66): after a reply that scored 5/5 on the point it was asked, the card still
    said "Score so far: 3/5". The question's score was the first answer's estimate or the
    coverage alone, whichever was higher, and the coverage alone sat below the estimate. What
    the replies add to the coverage now raises the first answer's estimate."""
    from interviewer.records import ClaimResult, Grade, Provenance
    from interviewer.session import Prompt, Turn

    def turn(kind, score, estimate, *claims):
        covered = tuple(c.point for c in claims if c.verdict == "covered")
        grade = Grade(
            score, covered, (), (), "", (), (), 0.9, Provenance("offline", "m"),
            expected_score=estimate, claims=claims,
        )  # fmt: skip
        return Turn(Prompt("q1", "Q?", kind, "easy"), "an answer", grade, 0.0)

    def point(pid, verdict):
        return ClaimResult(f"Point {pid}.", verdict, point_id=pid)

    first = turn(
        "question", 3, 3.2, point("a", "covered"), point("b", "covered"),
        *(point(p, "missed") for p in "cde"),
    )  # fmt: skip
    reply = turn("follow_up", 5, 5.0, point("c", "covered"))
    assert question_result([first], "q1").score == 3
    after = question_result([first, reply], "q1")
    assert after.score == 4  # 3.2 + one point of five (1.0); still under 5 with two missed
    assert "covered 3 of 5" in after.feedback
    # A reply that adds nothing leaves it where it was.
    nothing = turn("follow_up", 0, 0.0, point("c", "missed"))
    assert question_result([first, nothing], "q1").score == 3
