"""LLM grading throughput and follow-up latency against an OpenAI-compatible server (vLLM):

    python -m benchmarks.llm --url http://127.0.0.1:8000/v1 [--model NAME] [--answers 64]

At concurrency 1, 8 and 32: answers/s and output tokens/s for grading in-domain answers (the
grader's real prompt, schema and references), and the time to the first streamed token of a
follow-up. The table names the served model and this machine's hardware. On the CPU test
server (vllm_cpu/serve.sh) the figures prove the harness; on a GPU they are the figures.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks import report
from interviewer.config import Settings
from interviewer.detectors import settled_by_rules
from interviewer.errors import LLMError
from interviewer.evaldata import load
from interviewer.index import has_index, open_index
from interviewer.llm import OpenAICompatible
from interviewer.llm_grader import LLMGrader
from interviewer.records import Provenance, ReferenceSet
from interviewer.references import gather

REPO = Path(__file__).resolve().parent.parent

CONCURRENCY = (1, 8, 32)
FOLLOW_UP = [
    {"role": "system", "content": "You are a technical interviewer. Ask one short question."},
    {"role": "user", "content": "The candidate did not mention HBM bandwidth. Follow up."},
]


def hardware() -> str:
    if shutil.which("nvidia-smi"):
        gpus = subprocess.run(
            ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.split("\n")
        if gpus[0].strip():
            return f"{len([g for g in gpus if g.strip()])}x {gpus[0].strip()}"
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"CPU only: {cpu}, {os.cpu_count()} cores"


def served_model(settings: Settings) -> str:
    import httpx

    r = httpx.get(f"{settings.llm_base_url.rstrip('/')}/models", timeout=5)
    r.raise_for_status()
    return str(r.json()["data"][0]["id"])


def sample(settings: Settings, n: int) -> list[tuple[str, str, ReferenceSet]]:
    """In-domain answers that reach the model (rule-settled ones make no request), with the
    references the app would give them (bank variants and passages from the index)."""
    if not has_index(settings):
        raise SystemExit(f"no index in {settings.index_dir}: run `interviewer ingest` first")
    index = open_index(settings)
    prov = Provenance("llm", "", "")
    items = []
    for i in load("indomain", settings):
        refs = gather(i.question, index, settings, i.reference, question_id=i.question_id)
        if refs.references and settled_by_rules(i.answer, refs, prov) is None:
            items.append((i.question, i.answer, refs))
    return (items * (n // max(1, len(items)) + 1))[:n]


def run(settings: Settings, answers: int = 64) -> list[tuple[str, str, str]]:
    """Rows of (name, value, note); the model is whatever the server serves."""
    settings = settings.model_copy(update={"llm_model": served_model(settings)})
    items = sample(settings, answers)
    rows = []
    for conc in CONCURRENCY:
        chat = OpenAICompatible(settings)
        grader = LLMGrader(chat, settings)
        batch = items[: max(4, min(answers, 2 * conc))]
        errors = 0

        def one(item: tuple[str, str, ReferenceSet], grader: LLMGrader = grader) -> bool:
            try:
                grader.grade(*item)
                return True
            except LLMError:
                return False

        t0 = time.perf_counter()
        with ThreadPoolExecutor(conc) as pool:
            errors = sum(not ok for ok in pool.map(one, batch))
        dt = time.perf_counter() - t0
        rows.append(
            (
                f"LLM grading, concurrency {conc}",
                f"{len(batch) / dt:.2f} ans/s",
                f"{chat.output_tokens / dt:.0f} output tok/s; {len(batch)} answers, "
                f"{errors} failed",
            )
        )

        def first_token(_: int, chat: OpenAICompatible = chat) -> float:
            t = time.perf_counter()
            for _piece in chat.stream(FOLLOW_UP, settings.followup_max_tokens):
                return time.perf_counter() - t
            return float("nan")

        with ThreadPoolExecutor(conc) as pool:
            ttft = sorted(pool.map(first_token, range(max(4, conc))))
        rows.append(
            (
                f"follow-up time to first token, conc. {conc}",
                f"{statistics.median(ttft) * 1000:.0f} ms",
                f"p95 {ttft[int(0.95 * (len(ttft) - 1))] * 1000:.0f} ms over {len(ttft)} streams",
            )
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", default=os.environ.get("INTERVIEWER_BENCH_LLM_URL"), required=False)
    ap.add_argument("--answers", type=int, default=64, help="at most this many per level")
    ap.add_argument("--max-tokens", type=int, help="grader max_tokens (INTERVIEWER_LLM_MAX_TOKENS)")
    args = ap.parse_args()
    if not args.url:
        ap.error("--url (or INTERVIEWER_BENCH_LLM_URL) is required")
    over: dict[str, object] = {"llm_base_url": args.url, "llm_timeout_s": 600.0}
    if args.max_tokens:
        over["llm_max_tokens"] = args.max_tokens
    settings = Settings().model_copy(update=over)
    model = served_model(settings)
    rows = run(settings, args.answers)
    meta = {"model": model, "url": args.url, "hardware": hardware()}
    title = (
        f"{model} at {args.url}; client {meta['hardware']}; max_tokens {settings.llm_max_tokens}"
    )
    report("bench_llm", title, rows, meta | {"max_tokens": settings.llm_max_tokens}, "value")


if __name__ == "__main__":
    main()
