"""`python -m benchmarks` (or `make bench`): one table of medians, written to out/bench.json.

Runs on whatever machine it is given; these machines are noisy, so every figure is a median
over repeats, with p95 where a distribution matters. LLM rows appear when
INTERVIEWER_BENCH_LLM_URL points at an OpenAI-compatible server (see benchmarks/llm.py).
"""

from __future__ import annotations

import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import report
from interviewer.config import Settings
from interviewer.embeddings import default_embedder
from interviewer.evaldata import EvalItem, load
from interviewer.grader import make_grader
from interviewer.index import open_index
from interviewer.ingest import ingest
from interviewer.interview import Engine
from interviewer.references import gather
from interviewer.session import Plan

REPO = Path(__file__).resolve().parent.parent

QUERIES = [
    "HBM vs GDDR bandwidth",
    "why is my GPU utilization low",
    "ring all-reduce NCCL",
    "FP8 training what breaks",
    "shared memory bank conflicts",
    "pipeline bubble",
    "multi-tenant GPU cluster design",
    "INT4 quantization accuracy",
]
ROWS: list[tuple[str, str, str]] = []


def timed(fn: Callable[[], object], repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def row(name: str, value: str, note: str = "") -> None:
    ROWS.append((name, value, note))
    print(f"  {name:<44} {value:>16}  {note}", file=sys.stderr)


def fresh_claims(grader: object) -> None:
    """Empty the caches keyed by answer text (NLI pairs, sentence vectors, injection scores): every
    timed run pays for its own work."""
    from interviewer import injection

    injection.forget()
    for embedder in (getattr(grader, "embedder", None), default_embedder()):
        if hasattr(embedder, "clear"):
            embedder.clear()
    nli = getattr(grader, "nli", None)
    if nli is not None and hasattr(nli, "clear"):
        nli.clear()


def english(item: object) -> bool:
    from interviewer.injection import language

    return language(item.answer) == "en"  # type: ignore[attr-defined]


def throughput(label: str, grader: object, triples: list, note: str) -> None:
    grade_many = grader.grade_many  # type: ignore[attr-defined]
    grade_many(triples[:32])  # warm up

    def run() -> None:
        for s in range(0, len(triples), 256):
            fresh_claims(grader)
            grade_many(triples[s : s + 256])

    # The claim checker's cost: the (sentence, claim) pairs it runs through the NLI model.
    nli, asked = getattr(grader, "nli", None), [0]
    infer = getattr(nli, "_infer", None)
    if infer is not None:

        def counted(pairs: list) -> object:
            asked[0] += len(pairs)
            return infer(pairs)

        nli._infer = counted  # type: ignore[union-attr]
    try:
        runs = timed(run, 3)
    finally:
        if infer is not None:
            del nli._infer  # type: ignore[union-attr]
    words = statistics.median(len(t[1].split()) for t in triples)
    pairs = asked[0] / (3 * len(triples))
    row(
        f"offline grading throughput, {label}",
        f"{len(triples) / statistics.median(runs):.0f} ans/s",
        f"median {words:.0f} words; {note}; claims checked ({pairs:.1f} NLI pairs/answer)",
    )


def interview_turns(index: Any, settings: Settings, grader: Any, suffix: str = "") -> Any:
    """Rows for interview turns: answer in -> grade and next question out (no speech-to-text).
    Returns the engine."""
    # The question's references and key points are prepared while the candidate reads
    # it (Engine.warm): "after reading" runs that warm-up before timing the answer, "sent
    # at once" answers straight away and so also waits for it.
    queued: list = []
    engine = Engine(
        index.bank,
        grader,
        index,
        settings,
        time.time,
        random.Random(0),
        background=queued.append,
    )
    turns: dict[str, list[float]] = {
        "after reading": [],
        "sent at once": [],
        "a reply to a follow-up": [],
    }
    for n in range(24):
        read = n % 2 == 0
        session = engine.start(Plan((), "easy", 3))
        assert session.current is not None
        asked = index.bank.get(session.current.question_id)
        rubric = engine.rubric(asked) if asked else None
        # A realistic answer to the question asked: its model answer, first half.
        text = rubric.model_answer if rubric else "A short answer."
        text = " ".join(text.split()[: max(12, len(text.split()) // 2)])
        grader.forget_questions()
        fresh_claims(grader)
        if read:
            for job in queued:
                job()
        queued.clear()
        t0 = time.perf_counter()
        out = engine.answer(session, text)
        turns["after reading" if read else "sent at once"].append(time.perf_counter() - t0)
        if out.next is not None and out.next.kind == "follow_up" and rubric is not None:
            # The reply, after reading its follow-up: graded on the probed point and
            # against the question's other points (one batch).
            for job in queued:
                job()
            reply = next(k for k in rubric.key_points if k.id == out.next.focus)
            t0 = time.perf_counter()
            engine.answer(session, reply.paraphrases[-1] if reply.paraphrases else reply.text)
            turns["a reply to a follow-up"].append(time.perf_counter() - t0)
        queued.clear()  # the next question's warm-up: not needed here
    for label, values in turns.items():
        if not values:
            continue
        row(
            f"interview turn (offline{suffix}), {label}, p50",
            f"{statistics.median(values) * 1000:.0f} ms",
            f"p95 {pct(values, 0.95) * 1000:.0f} ms; grade (claims checked) + next question",
        )
    return engine


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> None:
    embedder = default_embedder()
    embedder.embed(["load the model before timing"])
    with tempfile.TemporaryDirectory() as tmp:
        # The claim checker in fp32 (as on any CPU); the bf16 rows below use AMX where present.
        settings = Settings(data_dir=Path(tmp), corpus_dir=REPO / "corpus", nli_precision="fp32")
        cold = timed(lambda: ingest(settings, embedder), 1)[0]
        row("ingest: cold, 5 guides (model loaded)", f"{cold:.2f} s")
        again = timed(lambda: ingest(settings, embedder), 5)
        row("ingest: nothing changed (in process)", f"{statistics.median(again) * 1000:.1f} ms")
        env = os.environ | {"INTERVIEWER_DATA_DIR": tmp}
        cli = [sys.executable, "-m", "interviewer.cli", "ingest", "-q"]
        bare = [sys.executable, "-c", "import interviewer.cli"]
        t_cli = statistics.median(
            timed(lambda: subprocess.run(cli, env=env, check=True, capture_output=True), 3)
        )
        t_bare = statistics.median(
            timed(lambda: subprocess.run(bare, env=env, check=True, capture_output=True), 3)
        )
        row(
            "ingest: nothing changed (CLI beyond start)",
            f"{(t_cli - t_bare) * 1000:.0f} ms",
            f"CLI {t_cli:.2f} s vs start {t_bare:.2f} s",
        )

        index = open_index(settings, embedder)
        index.warm()
        for q in QUERIES:  # warm-up
            index.search_questions(q, k=5)
        # The embedder keeps each text's vector: every timed query is embedded afresh.
        single = [
            timed(lambda q=q: (embedder.clear(), index.search_questions(q, k=5)), 1)[0]
            for _ in range(10)
            for q in QUERIES
        ]
        row(
            "retrieval top-5 questions, p50",
            f"{statistics.median(single) * 1000:.1f} ms",
            f"p95 {pct(single, 0.95) * 1000:.1f} ms; query embedding included",
        )
        passages = [
            timed(lambda q=q: (embedder.clear(), index.search_passages(q, k=5)), 1)[0]
            for _ in range(10)
            for q in QUERIES
        ]
        row(
            "retrieval top-5 passages, p50",
            f"{statistics.median(passages) * 1000:.1f} ms",
            f"p95 {pct(passages, 0.95) * 1000:.1f} ms",
        )

        # The claim checker in PyTorch (INTERVIEWER_NLI_RUNTIME=torch) beside the default, ONNX
        # Runtime: the same numbers, and what the runtime saves.
        eager = settings.model_copy(update={"nli_runtime": "torch"})
        items = [i for i in load("indomain", settings)]
        batch = (items * (600 // len(items) + 1))[:600]
        grader = make_grader("offline", settings, index=index)
        refs = {i.question: gather(i.question, index, settings, i.reference) for i in items}
        triples = [(i.question, i.answer, refs[i.question]) for i in batch]
        throughput("in-domain answers", grader, triples, "reference vectors cached")
        in_torch = make_grader("offline", eager, index=index)
        throughput(
            "in-domain answers, NLI in PyTorch", in_torch, triples, "reference vectors cached"
        )
        sets = (
            ("Mohler answers", "mohler", lambda i: True, 600),
            # English ones: an answer in another language is settled by a rule, not graded.
            ("50+ word answers", "saf", lambda i: len(i.answer.split()) >= 50 and english(i), 400),
        )
        for label, name, keep, limit in sets:
            try:
                chosen = [i for i in load(name, settings) if i.part == "report" and keep(i)]
            except Exception:  # no eval data beside the checkout: that row is left out
                continue
            triples_ = [
                (i.question, i.answer, gather(i.question, None, settings, i.reference))
                for i in chosen[:limit]
            ]
            note = f"{len(triples_)} {name} report rows"
            throughput(label, make_grader("offline", settings), triples_, note)
            throughput(f"{label}, NLI in PyTorch", make_grader("offline", eager), triples_, note)

        def grade_one(item: EvalItem = items[3]) -> None:
            fresh_claims(grader)
            grader.grade_many(
                [(item.question, item.answer, gather(item.question, index, settings))]
            )

        one = timed(grade_one, 20)
        row(
            "offline grade, one answer (with retrieval)",
            f"{statistics.median(one) * 1000:.0f} ms",
            f"p95 {pct(one, 0.95) * 1000:.0f} ms",
        )

        engine = interview_turns(index, settings, grader)
        interview_turns(index, settings, in_torch, ", PyTorch")
        # The claim checker in bf16 (INTERVIEWER_NLI_PRECISION): the same rows, side by side.
        fast = make_grader(
            "offline", settings.model_copy(update={"nli_precision": "bf16"}), index=index
        )
        throughput("in-domain answers, NLI in bf16", fast, triples, "reference vectors cached")
        interview_turns(index, settings, fast, ", NLI in bf16")

        import shutil

        if shutil.which("espeak-ng"):
            from interviewer.speech import Transcriber

            wav = Path(tmp) / "speech.wav"
            subprocess.run(
                [
                    "espeak-ng",
                    "-s",
                    "140",
                    "-w",
                    str(wav),
                    "Tensor Cores run "
                    "small matrix multiply accumulate tiles in one instruction, while "
                    "CUDA cores do one scalar operation per clock.",
                ],
                check=True,
            )
            for size in ("tiny.en", "base"):
                tr = Transcriber(size, Path(tmp) / "models")
                tr.transcribe(wav)
                rt = timed(lambda tr=tr: tr.transcribe(wav), 3)
                secs = tr.transcribe(wav).seconds
                row(
                    f"speech-to-text real-time factor, {size}",
                    f"{statistics.median(rt) / secs:.3f}",
                    f"{secs:.1f} s espeak-ng clip, int8 CPU",
                )

        # App start (fresh process, index already built) until the page serves, and one
        # engine.start() for the first question.
        import socket
        import urllib.request

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "interviewer.cli", "app", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            while True:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.1)
            ready = time.perf_counter() - t0
        finally:
            proc.kill()
            proc.wait()
        first = statistics.median(timed(lambda: engine.start(Plan((), "easy", 3)), 5))
        row(
            "app start to first question",
            f"{ready + first:.1f} s",
            f"process start to page served {ready:.1f} s + first question {first * 1000:.0f} ms",
        )

        url = os.environ.get("INTERVIEWER_BENCH_LLM_URL")
        if url:  # also alone: python -m benchmarks.llm --url URL
            from benchmarks.llm import run as run_llm

            for name, value, note in run_llm(settings.model_copy(update={"llm_base_url": url})):
                row(name, value, note)

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    row("peak memory (this process)", f"{peak:.0f} MiB")
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    report("bench", machine, ROWS, {"machine": machine}, "median")


if __name__ == "__main__":
    main()
