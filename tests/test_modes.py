"""The mode selector says the follow-up rule the engine follows (a user trial, ui41: "one
follow-up on what you missed" was read as a promise, and a 4/5 with a minor point missed got
none)."""

from __future__ import annotations

from interviewer.session import FOLLOW_UP_UNDER, MODE_INFO, Plan, Session


def core_answer(engine, starts: str, first_only: bool = False):
    """A phone screen on one question, answered with its core points only (or the first)."""
    q = next(q for q in engine.bank.questions if q.text.startswith(starts))
    rubric = engine.rubric(q)
    s = engine.start(Plan((), "easy", 2, "phone screen"))
    s.current = engine._ask(q)
    core = [k.text for k in rubric.ordered() if k.weight == "core"]
    out = engine.answer(s, core[0] if first_only else " ".join(core))
    missed = {c.point_id for c in out.turn.grade.claims if c.verdict == "missed"}
    return s, out, missed


def test_the_label_says_the_threshold_the_engine_uses():
    assert f"scores {FOLLOW_UP_UNDER - 1} or less" in MODE_INFO
    assert "a 4 or 5 moves on" in MODE_INFO and "Deep dive: up to two" in MODE_INFO


def test_a_4_with_a_minor_point_missed_moves_on_and_a_3_or_less_gets_one_follow_up(engine):
    _, four, missed = core_answer(engine, "What is the difference between HBM and GDDR")
    assert four.turn.grade.score == 4 and missed  # the trial's case: a supporting point missed
    assert four.decision == "harder" and four.next.kind == "question"
    s, three, missed = core_answer(engine, "What is gradient checkpointing?", first_only=True)
    assert 1 < three.turn.grade.score <= FOLLOW_UP_UNDER - 1
    assert three.decision == "follow-up" and three.next.focus in missed
    after = engine.answer(s, "It matters when activations do not fit.")
    assert after.next is None or after.next.kind == "question"  # one follow-up at most


def test_a_deep_dive_probes_a_4_that_missed_a_core_point_and_a_phone_screen_moves_on(engine):
    """A user trial (stop 64): a deep dive asked one follow-up in seven questions; an answer
    that left out pipeline parallelism scored 4 and was never asked about it."""
    q = next(q for q in engine.bank.questions if q.text.startswith("What is gradient checkp"))
    rubric = engine.rubric(q)
    core = [k for k in rubric.ordered() if k.weight == "core"]
    said = " ".join([k.text for k in core[1:]] + [k.text for k in rubric.ordered()[len(core) :]])
    outs = {}
    for mode in ("deep dive", "phone screen"):
        s = engine.start(Plan((), "easy", 2, mode))
        s.current = engine._ask(q)
        outs[mode] = engine.answer(s, said)
    deep, phone = outs["deep dive"], outs["phone screen"]
    assert deep.turn.grade.score == phone.turn.grade.score == FOLLOW_UP_UNDER
    assert deep.decision == "follow-up" and deep.next.focus == core[0].id
    assert phone.decision == "harder" and phone.next.kind == "question"
    assert "a 4 that missed a core point is probed too" in MODE_INFO


def test_rapid_fire_asks_what_fits_its_minute_where_a_phone_screen_may_ask_a_design(engine):
    """Trials' rapid-fire (stops 65, 66) served six-part design and trade-off prompts with 60
    seconds to answer them. Each topic and level's first pick, in both modes."""

    def long(q):  # a design or coding task, or a prompt of several parts
        return q.kind in ("system design", "coding") or len(q.text) > 200

    picked = {}
    for mode in ("rapid-fire", "phone screen"):
        for topic in engine.bank.topics():
            for level in ("easy", "medium", "hard"):
                session = Session("s", Plan((topic,), level, 3, mode), 0.0)
                picked[mode, topic, level] = engine.pick(session, level)
    quick_topics = {t for q in engine.bank.technical() if not long(q) for t in q.topics}
    rapid = [q for (m, t, _), q in picked.items() if m == "rapid-fire" and t in quick_topics]
    assert rapid and not any(long(q) for q in rapid)
    assert any(long(q) for q in picked.values())  # a phone screen still asks them
