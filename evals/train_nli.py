"""Train the claim checker: a 3-way NLI cross-encoder (entailment / neutral / contradiction)
fine-tuned from the packaged all-MiniLM-L6-v2 weights. One command, fixed seed:

    .venv/bin/python -m evals.train_nli            # both stages, then the test-split report
    .venv/bin/python -m evals.train_nli --stage 2  # domain stage only, from out/nli/stage1
    .venv/bin/python -m evals.train_nli --out out/nli/try  # a candidate, shipped one untouched

Premise = what the candidate said, hypothesis = the claim checked (a key point or a
misconception). Stage 1: the `train` split of ../shared/nli plus SciEntsBank `train`
(student answer vs reference: correct -> entailment, contradictory -> contradiction,
incorrect -> neutral). Stage 2: pairs made from the rubrics (key point vs its paraphrases,
key point vs the misconceptions that contradict it, a misconception's paraphrases vs it and
vs its key point, other key points as neutral) with a
replay sample of stage 1's data. Rubrics of the in-domain eval's test-split questions are left
out so that its report figures stay clean.

The word-embedding table stays frozen (it is the packaged MiniLM's), so the shipped file holds
only the rest, in fp16: `interviewer/data/nli/` (one weights file, replaced on retraining).
About 70 minutes per stage-1 epoch on 2 CPU cores; about 40 s per epoch on one H200
(`--device cuda`, the default there; `--base` takes a copy of the packaged model and `--shared`
the data folder, for a GPU machine without either).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch

from interviewer.nli import LABELS, NLI_DIR, load_base, predict, save_model
from interviewer.rubrics import load_authored

SHARED = Path(__file__).resolve().parents[2] / "shared"
WORK = Path("out/nli")
SEED = 1234
EPOCHS = (1, 1)


def nli_rows(split: str, shared: Path = SHARED) -> list[tuple[str, str, int]]:
    with gzip.open(shared / "nli" / "nli.jsonl.gz", "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return [
        (r["premise"], r["hypothesis"], LABELS.index(r["label"]))
        for r in rows
        if r["split"] == split
    ]


def scientsbank_rows(shared: Path = SHARED) -> list[tuple[str, str, int]]:
    label = {"correct": 0, "incorrect": 1, "contradictory": 2}
    out = []
    for line in (shared / "evaldata" / "scientsbank.jsonl").read_text("utf-8").splitlines():
        r = json.loads(line)
        if r["split"] == "train":
            out.append((r["student_answer"], r["reference_answer"], label[r["label_3way"]]))
    return out


def indomain_test_questions() -> set[str]:
    path = Path("interviewer/data/indomain.jsonl")
    if not path.exists():
        path = Path("evals/data/indomain.jsonl")
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    return {r["question"].strip().lower() for r in rows if r["split"] == "test"}


def rubric_rows(rng: random.Random) -> list[tuple[str, str, int]]:
    held_out = indomain_test_questions()
    rubrics = [
        r
        for r in load_authored().values()
        if r.technical and r.question.strip().lower() not in held_out
    ]
    all_points = [kp.text for r in rubrics for kp in r.key_points]
    out: list[tuple[str, str, int]] = []
    for r in rubrics:
        for kp in r.key_points:
            others = [o for o in r.key_points if o.id != kp.id]
            says = [kp.text, *kp.paraphrases]
            out.extend((p, kp.text, 0) for p in says)
            out.append((rng.choice(all_points), kp.text, 1))
            if others:
                other = rng.choice(others)
                out.append((rng.choice([other.text, *other.paraphrases]), kp.text, 1))
                # Answers say several things in one breath: the point inside a longer premise.
                out.append(
                    (
                        f"{rng.choice(says)} {rng.choice([other.text, *other.paraphrases])}",
                        kp.text,
                        0,
                    )
                )
        for m in r.misconceptions:
            target = r.point(m.contradicts)
            out.append((m.text, target.text, 2))
            out.append((target.text, m.text, 2))
            out.extend((p, m.text, 2) for p in target.paraphrases)
            out.append((m.text, m.text, 0))
            # The misconception in other words still states it, and still denies the point:
            # without these the only premise that entailed a misconception was itself, and
            # the model read a candidate's own wording of one as contradicting it.
            for p in m.paraphrases:
                out.append((p, m.text, 0))
                out.append((p, target.text, 2))
            others = [o for o in r.key_points if o.id != target.id]
            if others:
                other = rng.choice(others)
                out.append((other.text, m.text, 1))
                said = rng.choice([m.text, *m.paraphrases])
                out.append(
                    (f"{rng.choice([other.text, *other.paraphrases])} {said}", target.text, 2)
                )
                if m.paraphrases:
                    out.append(
                        (f"{rng.choice([other.text, *other.paraphrases])} {said}", m.text, 0)
                    )
    return [row for row in out if row[0].strip() != "" and row[1].strip() != ""]


def batches(
    rows: list[tuple[str, str, int]], size: int, rng: random.Random
) -> list[list[tuple[str, str, int]]]:
    """Shuffled, then grouped by length in pools of 50 batches: less padding, still random."""
    rows = rows[:]
    rng.shuffle(rows)
    out = []
    pool = size * 50
    for start in range(0, len(rows), pool):
        chunk = sorted(rows[start : start + pool], key=lambda r: len(r[0]) + len(r[1]))
        out.extend(chunk[i : i + size] for i in range(0, len(chunk), size))
    rng.shuffle(out)
    return out


def train(model, tokenizer, rows, lr: float, epochs: int, rng: random.Random, log: str) -> None:  # type: ignore[no-untyped-def]
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    plan = [b for _ in range(epochs) for b in batches(rows, 32, rng)]
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, s / max(1, len(plan) // 20)) * max(0.0, 1 - s / len(plan))
    )
    t0 = time.time()
    for step, b in enumerate(plan):
        enc = tokenizer(
            [r[0] for r in b],
            [r[1] for r in b],
            padding=True,
            truncation=True,
            max_length=128,
            return_tensors="pt",
        ).to(model.device)
        out = model(**enc, labels=torch.tensor([r[2] for r in b], device=model.device))
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        if step % 100 == 0:
            rate = (step + 1) / (time.time() - t0)
            print(
                f"{log} step {step}/{len(plan)} loss {out.loss.item():.3f} "
                f"({rate:.2f} steps/s, ~{(len(plan) - step) / rate / 60:.0f} min left)",
                flush=True,
            )
    model.eval()


def evaluate(model, tokenizer, rows) -> dict[str, object]:  # type: ignore[no-untyped-def]
    model.eval()
    out = predict(model, tokenizer, [(r[0], r[1]) for r in rows], 64).argmax(-1)
    preds = out.tolist()
    gold = [r[2] for r in rows]
    acc = float(np.mean([p == g for p, g in zip(preds, gold, strict=True)]))
    per = {}
    for k, name in enumerate(LABELS):
        tp = sum(p == k and g == k for p, g in zip(preds, gold, strict=True))
        prec = tp / max(1, sum(p == k for p in preds))
        rec = tp / max(1, sum(g == k for g in gold))
        per[name] = {"precision": round(prec, 3), "recall": round(rec, 3)}
    return {"n": len(rows), "accuracy": round(acc, 4), "per_label": per}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stage", type=int, choices=(1, 2), default=1, help="start at this stage")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path, default=NLI_DIR, help="weights folder (default: shipped)")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--epochs1", type=int, default=EPOCHS[0], help="passes over stage 1's pairs")
    ap.add_argument("--epochs2", type=int, default=EPOCHS[1], help="passes over stage 2's pairs")
    ap.add_argument("--work", type=Path, default=WORK, help="where stage 1's state is kept")
    ap.add_argument("--shared", type=Path, default=SHARED, help="the shared data folder")
    ap.add_argument("--base", help="a copy of the packaged MiniLM (default: the package's)")
    ap.add_argument("--limit", type=int, help="smoke run: the first N pairs of each set")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    rng = random.Random(SEED)
    torch.manual_seed(SEED)
    args.work.mkdir(parents=True, exist_ok=True)
    model, tokenizer = load_base(args.base)
    model.to(args.device)
    stage1 = args.work / "stage1.pt"
    train1 = (nli_rows("train", args.shared) + scientsbank_rows(args.shared))[: args.limit]
    if args.stage == 1:
        print("stage 1:", len(train1), "pairs", Counter(r[2] for r in train1), flush=True)
        train(model, tokenizer, train1, 5e-5, args.epochs1, rng, "stage1")
        torch.save(model.state_dict(), stage1)
        stage1.with_suffix(".json").write_text(json.dumps({"epochs": args.epochs1}), "utf-8")
    else:
        model.load_state_dict(torch.load(stage1, map_location=args.device))
        # The report names the stage-1 recipe that was run, not this run's flag.
        if (meta := stage1.with_suffix(".json")).exists():
            args.epochs1 = json.loads(meta.read_text("utf-8"))["epochs"]
    # Stage 2 seeds afresh, so `--stage 2` from a saved stage 1 writes what a full run writes.
    rng = random.Random(SEED + 2)
    torch.manual_seed(SEED + 2)
    domain = rubric_rows(rng)[: args.limit]
    # As much general data again as domain data: the technical pairs teach the domain without
    # the model forgetting what the general pairs taught it.
    replay = rng.sample(train1, min(len(train1), len(domain)))
    print("stage 2:", len(domain), "rubric pairs", Counter(r[2] for r in domain), flush=True)
    train(model, tokenizer, domain + replay, 3e-5, args.epochs2, rng, "stage2")
    report = {"nli_test": evaluate(model, tokenizer, nli_rows("test", args.shared)[: args.limit])}
    print(json.dumps(report, indent=1), flush=True)
    recipe = {"seed": SEED, "stage1_pairs": len(train1), "epochs": [args.epochs1, args.epochs2]}
    save_model(model, args.out, report | recipe | {"device": str(args.device)})


if __name__ == "__main__":
    main()
