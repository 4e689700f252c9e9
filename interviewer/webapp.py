"""The Gradio mock interview. Handlers are thin: logic lives in Controller and the engine."""

from __future__ import annotations

import json
import os
import queue
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import Settings
from .errors import InterviewerError, require
from .interview import MODES, Engine, Plan, Session
from .report import to_json, to_markdown, topic_scores, weak_topics
from .speech import Transcriber, vocabulary_from
from .store import Store


@dataclass(frozen=True)
class View:
    """Everything the page shows for one session."""

    session_id: str
    chat: list[dict[str, str]]
    card: str
    references: str
    status: str


def grade_card(turn: Any) -> tuple[str, str]:
    g = turn.grade
    if g is None:
        return "_Skipped._", ""
    lines = [
        f"### Score {g.score}/5",
        f"Grader: **{g.provenance.grader}** ({g.provenance.model}); decided by "
        f"{g.provenance.decided_by}; confidence {g.confidence:.2f}"
        + (f"; flags: {', '.join(g.flags)}" if g.flags else ""),
        "",
        g.feedback,
        "",
    ]
    for title, items in (
        ("Covered", g.covered),
        ("Missed", g.missed),
        ("Wrong claims", g.wrong_claims),
    ):
        if items:
            lines += [f"**{title}**"] + [f"- {x}" for x in items] + [""]
    refs = "\n\n".join(f"**[{r.id}]** {r.source}\n\n> {r.text[:700]}" for r in g.references)
    return "\n".join(lines), refs or "_No reference passages._"


class Controller:
    def __init__(
        self,
        settings: Settings,
        engine: Engine,
        store: Store,
        transcriber: Transcriber | None,
        llm_status: str,
    ) -> None:
        self.settings, self.engine, self.store = settings, engine, store
        self.transcriber, self.llm_status = transcriber, llm_status

    def _load(self, session_id: str) -> Session:
        session = self.store.load(session_id) if session_id else None
        if session is None:
            raise InterviewerError("no interview in progress: press Start")
        return session

    def view(self, session: Session, note: str = "") -> View:
        chat: list[dict[str, str]] = []
        for t in session.turns:
            chat.append({"role": "assistant", "content": t.prompt.text})
            if t.skipped:
                chat.append({"role": "user", "content": "(skipped)"})
                continue
            chat.append({"role": "user", "content": t.answer or "(empty)"})
            if t.grade:
                chat.append(
                    {
                        "role": "assistant",
                        "content": f"Score {t.grade.score}/5 — {t.grade.feedback}",
                    }
                )
        if session.current:
            label = (
                " _(follow-up worded offline: the LLM did not answer)_"
                if session.current.writer == "offline" and self.settings.grader == "llm"
                else ""
            )
            chat.append({"role": "assistant", "content": session.current.text + label})
        elif session.status == "ended":
            chat.append(
                {
                    "role": "assistant",
                    "content": "That's the end of the interview. Your report is below.",
                }
            )
        if note:
            chat.append({"role": "assistant", "content": note})
        card, refs = grade_card(session.turns[-1]) if session.turns else ("", "")
        done = session.main_questions()
        status = (
            f"Session {session.id} · {session.plan.mode} · question "
            f"{min(done + 1, session.plan.length)}/{session.plan.length}"
            if session.status == "active"
            else f"Session {session.id} · ended"
        )
        return View(session.id, chat, card, refs, status)

    def start(self, topics: list[str], difficulty: str, mode: str, length: int) -> View:
        plan = Plan(tuple(topics or ()), difficulty, int(length), mode)  # type: ignore[arg-type]
        session = self.engine.start(plan)
        self.store.save(session)
        return self.view(session)

    def answer(self, session_id: str, text: str) -> View:
        return list(self.answer_stream(session_id, text))[-1]

    def answer_stream(self, session_id: str, text: str) -> Iterator[View]:
        """Show the answer at once, then the follow-up as the LLM streams it, then the turn."""
        session = self._load(session_id)
        before = self.view(session)
        events: queue.Queue[tuple[str, Any]] = queue.Queue()

        def work() -> None:
            try:
                self.engine.answer(session, text, on_text=lambda t: events.put(("text", t)))
                self.store.save(session)
                events.put(("done", None))
            except Exception as e:
                events.put(("error", e))

        threading.Thread(target=work, daemon=True).start()
        chat = [*before.chat, {"role": "user", "content": text or "(empty)"}]
        yield View(
            before.session_id,
            [*chat, {"role": "assistant", "content": "Grading…"}],
            before.card,
            before.references,
            before.status,
        )
        while True:
            kind, value = events.get()
            if kind == "text":
                yield View(
                    before.session_id,
                    [*chat, {"role": "assistant", "content": value}],
                    before.card,
                    before.references,
                    before.status,
                )
            elif kind == "done":
                yield self.view(session)
                return
            else:
                raise value

    def command(self, session_id: str, name: str) -> View:
        session = self._load(session_id)
        note = ""
        if name == "skip":
            self.engine.skip(session)
        elif name == "hint":
            note = self.engine.hint(session)
        elif name == "repeat":
            note = session.current.text if session.current else ""
        elif name == "end":
            self.engine.end(session)
        self.store.save(session)
        return self.view(session, note)

    def transcribe(self, session_id: str, audio_path: str | None) -> str:
        if self.transcriber is None:
            raise InterviewerError("speech input is not installed: pip install 'interviewer[app]'")
        if not audio_path:
            raise InterviewerError("record or upload an answer first")
        question = ""
        if session_id and (s := self.store.load(session_id)) and s.current:
            question = s.current.text
        return self.transcriber.transcribe(Path(audio_path), question).text

    def report(self, session_id: str) -> tuple[str, list[dict[str, Any]], list[str]]:
        session = self._load(session_id)
        bank = self.engine.bank
        md, data = to_markdown(session, bank), to_json(session, bank)
        out = self.settings.data_dir / "reports"
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{session.id}.md").write_text(md, "utf-8")
        (out / f"{session.id}.json").write_text(json.dumps(data, indent=1), "utf-8")
        rows = [{"topic": t, "score": s} for t, s in topic_scores(session, bank).items()]
        return md, rows, [str(out / f"{session.id}.md"), str(out / f"{session.id}.json")]

    def history(self) -> tuple[list[list[Any]], str]:
        rows = [
            [
                s["id"],
                time.strftime("%Y-%m-%d %H:%M", time.localtime(s["created_at"])),
                s["status"],
                s["turns"],
                s["mean_score"],
            ]
            for s in self.store.sessions()
        ]
        weak = weak_topics(self.store.topic_scores(), self.engine.bank)
        text = (
            (
                "Topics that stay weak across sessions: "
                + ", ".join(f"{t} ({m}/5 over {n} answers)" for t, m, n in weak)
            )
            if weak
            else ("No topic is consistently weak yet.")
        )
        return rows, text


def build_controller(settings: Settings) -> Controller:
    """Wire the real components: index, grader, engine, store, speech."""
    from .embeddings import default_embedder
    from .grader import make_grader
    from .index import Index
    from .ingest import ingest
    from .llm import ping

    embedder = default_embedder()
    index = Index(settings.index_dir, embedder)
    if index.generation() is None:
        ingest(settings, embedder)
    index.warm()
    grader = make_grader(settings.grader, settings, embedder=embedder, index=index)
    followups: Any = None
    if settings.grader == "llm":
        from .interview import LLMFollowUps
        from .llm import OpenAICompatible

        followups = LLMFollowUps(
            OpenAICompatible(settings.for_followups()), settings.followup_max_tokens
        )
    engine = Engine(index.bank, grader, index, settings, time.time, random.Random(), followups)
    problem = ping(settings) if settings.grader == "llm" else None
    llm_status = (
        f"LLM grader at {settings.llm_base_url}: " + (problem or "answering")
        if settings.grader == "llm"
        else f"offline grader (no LLM); set INTERVIEWER_GRADER=llm to use {settings.llm_base_url}"
    )
    transcriber = None
    try:
        require("faster_whisper", "app")
        transcriber = Transcriber(
            os.environ.get("INTERVIEWER_SPEECH_MODEL", "base"),
            settings.data_dir / "models",
            vocabulary_from([q.text for q in index.bank.questions]),
        )
    except InterviewerError:
        pass
    return Controller(
        settings, engine, Store(settings.data_dir / "sessions.sqlite3"), transcriber, llm_status
    )


def browser_secret(data_dir: Path) -> str:
    import secrets

    path = data_dir / "browser_secret"
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(16))
        path.chmod(0o600)
    return path.read_text().strip()


def build_ui(ctl: Controller) -> Any:
    import gradio as gr

    def guard(fn: Any) -> Any:
        def wrapped(*args: Any) -> Any:
            try:
                return fn(*args)
            except InterviewerError as e:
                raise gr.Error(str(e)) from e

        return wrapped

    def show(v: View) -> tuple[Any, ...]:
        return v.session_id, v.session_id, v.chat, v.card, v.references, v.status, ""

    topics = ctl.engine.bank.topics()
    with gr.Blocks(title="GPU / ML-infra mock interview", analytics_enabled=False) as demo:
        sid = gr.State("")
        # A stable secret: the browser's remembered session must still decrypt after a restart.
        remembered = gr.BrowserState(
            "", storage_key="interviewer-session", secret=browser_secret(ctl.settings.data_dir)
        )
        gr.Markdown("# GPU · CUDA · ML-infrastructure mock interview")
        with gr.Row():
            with gr.Column(scale=1):
                pick_topics = gr.CheckboxGroup(topics, label="Topics (none = all)")
                pick_diff = gr.Radio(
                    ["easy", "medium", "hard"], value="easy", label="Starting difficulty"
                )
                pick_mode = gr.Radio(list(MODES), value="phone screen", label="Mode")
                pick_len = gr.Slider(1, 15, value=5, step=1, label="Questions")
                start = gr.Button("Start interview", variant="primary", elem_id="start")
                gr.Markdown(ctl.llm_status, elem_id="grader-status")
            with gr.Column(scale=2):
                status = gr.Markdown("", elem_id="status")
                chat = gr.Chatbot(label="Interview", height=420, elem_id="chat")
                answer = gr.Textbox(
                    label="Your answer (edit a transcript here before sending)",
                    lines=4,
                    elem_id="answer",
                )
                with gr.Row():
                    send = gr.Button("Send answer", variant="primary", elem_id="send")
                    skip = gr.Button("Skip", elem_id="skip")
                    hint = gr.Button("Hint", elem_id="hint")
                    repeat = gr.Button("Repeat", elem_id="repeat")
                    end = gr.Button("End", elem_id="end")
                with gr.Row():
                    audio = gr.Audio(
                        sources=["microphone", "upload"],
                        type="filepath",
                        label="Or speak your answer",
                        elem_id="audio",
                    )
                    transcribe = gr.Button("Transcribe", elem_id="transcribe")
                card = gr.Markdown("", elem_id="grade-card")
                with gr.Accordion("Reference passages used", open=False):
                    refs = gr.Markdown("", elem_id="references")
        with gr.Accordion("Report", open=True):
            make_report = gr.Button("Build report", elem_id="build-report")
            report_md = gr.Markdown("", elem_id="report")
            chart = gr.BarPlot(x="topic", y="score", y_lim=[0, 5], label="Score by topic")
            files = gr.File(
                label="Downloads (Markdown, JSON)", file_count="multiple", elem_id="downloads"
            )
        with gr.Accordion("Past sessions", open=False):
            history = gr.Dataframe(
                headers=["session", "started", "status", "turns", "mean"],
                interactive=False,
                elem_id="history",
            )
            weak = gr.Markdown("")
            resume_id = gr.Textbox(label="Session id to resume or review", elem_id="resume-id")
            resume = gr.Button("Open session", elem_id="resume")

        outs = [sid, remembered, chat, card, refs, status, answer]
        start.click(
            guard(lambda t, d, m, n: show(ctl.start(t, d, m, n))),
            [pick_topics, pick_diff, pick_mode, pick_len],
            outs,
        )

        def stream_answer(s: str, a: str) -> Iterator[tuple[Any, ...]]:
            try:
                for view in ctl.answer_stream(s, a):
                    yield show(view)
            except InterviewerError as e:
                raise gr.Error(str(e)) from e

        send.click(stream_answer, [sid, answer], outs)
        answer.submit(stream_answer, [sid, answer], outs)
        for button, name in ((skip, "skip"), (hint, "hint"), (repeat, "repeat"), (end, "end")):
            button.click(guard(lambda s, n=name: show(ctl.command(s, n))), [sid], outs)
        transcribe.click(guard(ctl.transcribe), [sid, audio], [answer])

        def build_report(s: str) -> tuple[Any, ...]:
            md, rows, paths = ctl.report(s)
            import pandas as pd

            return md, pd.DataFrame(rows or [{"topic": "-", "score": 0}]), paths

        make_report.click(guard(build_report), [sid], [report_md, chart, files])
        resume.click(guard(lambda r: show(ctl.view(ctl._load(r.strip())))), [resume_id], outs)

        def on_load(saved: str) -> tuple[Any, ...]:
            rows, text = ctl.history()
            session = ctl.store.load(saved) if saved else None
            if session is None:
                return ("", "", [], "", "", "Press Start to begin.", "", rows, text)
            return (*show(ctl.view(session)), rows, text)

        demo.load(on_load, [remembered], [*outs, history, weak])
    return demo


def main(host: str | None = None, port: int | None = None) -> None:
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    settings = Settings()
    demo = build_ui(build_controller(settings))
    demo.queue(default_concurrency_limit=4).launch(
        server_name=host or os.environ.get("INTERVIEWER_HOST", "127.0.0.1"),
        server_port=port or int(os.environ.get("INTERVIEWER_PORT", "7860")),
        allowed_paths=[str(settings.data_dir / "reports")],
    )
