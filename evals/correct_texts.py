"""How often the offline grader calls a correct answer wrong, over the bank's own correct texts:

    .venv/bin/python -m evals.correct_texts [-v]

For every bank question with a rubric, two answers that are right by construction: the
rubric's model answer, and the key points' last paraphrases joined (a terse, spoken-style
answer). Counts the answers with any contradicted key point, by what decided it (exact check,
stated misconception, the NLI model), and with -v prints each. Then replies to follow-ups:
each probe answered with its point's last two paraphrases (right) and with the misconceptions
about its point (wrong), graded as the interview grades a reply (on the probed point, and
against the question's other points: `scoring.also_said`): how many are covered, missed,
contradicted, and how many are given a wrong claim on another point; and each probe answered
with the next point's last paraphrase (another point): how often that point is credited.
And each key point given alone, word for word, as the answer to its question:
how often that point is covered. These texts are the rubrics' own, so the figures are a check
on the claim checker, not an accuracy on unseen answers.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import replace

from interviewer.config import Settings
from interviewer.embeddings import default_embedder
from interviewer.index import open_index
from interviewer.offline import OfflineGrader
from interviewer.references import focused, gather, load_rubrics, rubric_of
from interviewer.scoring import also_said


def main() -> None:
    settings = Settings()
    embedder = default_embedder()
    index = open_index(settings, embedder)
    grader = OfflineGrader(embedder, index=index)
    rubrics = load_rubrics(settings.data_dir)
    items, kinds = [], []
    alone: list[tuple[str, str, object]] = []  # each key point, word for word, as the answer
    replies: dict[str, list] = {"right": [], "wrong": [], "another point": []}
    for q in index.bank.technical():
        rubric = rubric_of(q, rubrics)
        if rubric is None or not rubric.key_points:
            continue
        refs = gather(q.text, index, settings, question_id=q.id)
        probed = [k for k in rubric.key_points if k.probe]
        for k in rubric.key_points:
            alone.append((q.text, k.text, refs))
        for n, k in enumerate(probed):
            on_k = focused(refs, (k.id,))
            replies["right"] += [(q.text, k.probe, p, on_k, "") for p in k.paraphrases[-2:]]
            replies["wrong"] += [
                (q.text, k.probe, m.text, on_k, "")
                for m in rubric.misconceptions
                if m.contradicts == k.id
            ]
            if len(probed) > 1 and (other := probed[(n + 1) % len(probed)]).paraphrases:
                replies["another point"].append(
                    (q.text, k.probe, other.paraphrases[-1], on_k, other.id)
                )
        if rubric.model_answer:
            items.append((q.text, rubric.model_answer, refs))
            kinds.append("model answer")
        if terse := [k.paraphrases[-1] for k in rubric.key_points if k.paraphrases]:
            items.append((q.text, " ".join(terse), refs))
            kinds.append("paraphrases")
    analyses, _ = grader.prepare(items)
    answers, wrong, by = Counter(kinds), Counter(), Counter()
    for kind, checked in zip(kinds, grader.check(items, analyses), strict=True):
        found = [v for v in checked[0].points if v.verdict == "contradicted"] if checked else []
        wrong[kind] += bool(found)
        for v in found:
            by[v.decided_by] += 1
            if "-v" in sys.argv:
                print(f"[{kind}, {v.decided_by}] {v.evidence!r}\n    against {v.claim.text!r}")
    print("| correct answers | n | with a false wrong claim |")
    print("| --- | --- | --- |")
    for kind in answers:
        print(f"| {kind} | {answers[kind]} | {wrong[kind]} |")
    print("decided by:", dict(by))
    graded = grader.grade_many(alone)  # type: ignore[arg-type]
    said = Counter(
        next((c.verdict for c in g.claims if c.point == text), "not checked")
        for (_, text, _), g in zip(alone, graded, strict=True)
    )
    print("\n| each key point alone as the answer | n | its point covered | scored 0 |")
    print("| --- | --- | --- | --- |")
    print(
        f"| key points | {len(alone)} | {said['covered']} | {sum(g.score == 0 for g in graded)} |"
    )
    print("other verdicts on the point itself:", {k: v for k, v in said.items() if k != "covered"})
    print(
        "\n| follow-up replies | n | probed point covered | missed | contradicted "
        "| a wrong claim on another point | the other point credited |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for kind, rows in replies.items():
        graded = grader.grade_many(
            [
                x
                for q, probe, a, on_k, _ in rows
                for x in ((probe, a, on_k), (q, a, replace(on_k, focus=())))
            ]
        )
        got = [also_said(graded[2 * n], graded[2 * n + 1]) for n in range(len(rows))]
        seen = Counter(g.claims[0].verdict for g in got if g.claims)
        n = len(rows)
        shares = " | ".join(f"{seen[v] / n:.3f}" for v in ("covered", "missed", "contradicted"))
        elsewhere = sum(any(c.verdict == "contradicted" for c in g.claims[1:]) for g in got)
        credited = sum(
            any(c.point_id == want and c.verdict == "covered" for c in g.claims[1:])
            for g, (*_, want) in zip(got, rows, strict=True)
        )
        other = f"{credited / n:.3f}" if kind == "another point" else "-"
        print(f"| {kind} | {n} | {shares} | {elsewhere / n:.3f} | {other} |")


if __name__ == "__main__":
    main()
