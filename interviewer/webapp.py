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
from .errors import InputError, InterviewerError, require
from .interview import Engine
from .report import to_json, to_markdown, topic_scores, weak_topics
from .session import MODES, Plan, Session, question_result
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
    turns: int = -1  # how many turns the page shows
    active: bool = True  # the interview takes answers
    report: str = ""  # the report, once the interview has ended


def printable_html(markdown: str, title: str) -> str:
    """The report as one self-contained HTML page, laid out for printing to PDF."""
    from html import escape

    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").enable("table").render(markdown)
    style = (
        "body{font:14px/1.5 system-ui,sans-serif;max-width:46em;margin:2em auto;color:#111}"
        "table{border-collapse:collapse}td,th{border:1px solid #999;padding:.2em .6em}"
        "blockquote{color:#444;border-left:3px solid #ccc;margin:0;padding-left:1em}"
        "@media print{body{margin:0}h3{break-after:avoid}}"
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title>"
        f"<style>{style}</style></head><body>{body}</body></html>"
    )


def closed_after(session: Session, n: int) -> bool:
    """Whether turn n's question is over (no follow-up of it is pending)."""
    qid = session.turns[n].prompt.question_id
    if any(t.prompt.question_id != qid for t in session.turns[n + 1 :]):
        return True
    later = any(t.prompt.question_id == qid for t in session.turns[n + 1 :])
    return not later and (session.current is None or session.current.question_id != qid)


def grade_card(session: Session, engine: Engine) -> tuple[str, str]:
    """The last turn's card. While a follow-up of the question is pending it shows the score
    so far only: what was missed would give the follow-up away. Once the question is closed:
    the question's result over all its turns, the wrong claims with their corrections, what was
    missed with its source, and the model answer."""
    turn = session.turns[-1]
    g = turn.grade
    if g is None:
        return "_Skipped._", ""
    refs = "\n\n".join(f"**{r.source or r.id}**\n\n> {r.text[:700]}" for r in g.references)
    refs = refs or "_No reference passages._"
    if not closed_after(session, len(session.turns) - 1):
        return (
            f"### Score so far {g.score}/5\n\nA follow-up question is next. What you "
            "missed, and a model answer, are shown when this question is closed.",
            refs,
        )
    qid = turn.prompt.question_id
    result = question_result(session.turns, qid)
    lines = [f"### Score {result.score}/5", "", result.feedback, ""]
    if g.flags:
        lines += [f"_Flagged: {', '.join(g.flags)}_", ""]
    wrong = [c for c in result.claims if c.verdict == "contradicted"]
    covered = [c for c in result.claims if c.verdict == "covered"]
    missed = [c for c in result.claims if c.verdict == "missed"]
    if wrong:
        lines += (
            ["**Wrong claims**"]
            + [
                f'- "{c.evidence}" — in fact: {c.point}' + (f" _({c.source})_" if c.source else "")
                for c in wrong
            ]
            + [""]
        )
    if covered:
        lines += ["**Covered**"] + [f"- {c.point}" for c in covered] + [""]
    if missed:
        lines += (
            ["**Missed**"]
            + [f"- {c.point}" + (f" _({c.source})_" if c.source else "") for c in missed]
            + [""]
        )
    q = engine.bank.get(qid)
    rubric = engine.rubric(q) if q else None
    if rubric and rubric.model_answer:
        lines += ["**Model answer**", "", rubric.model_answer, ""]
    p = g.provenance
    lines += [
        f"<details><summary>Grading details</summary>grader {p.grader} ({p.model}); "
        f"key points: {p.rubric or 'n/a'}; claim checker: {p.claim_checker or 'n/a'}; "
        f"decided by {p.decided_by}; confidence {g.confidence:.2f}</details>"
    ]
    return "\n".join(lines), refs


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
        self._busy: set[str] = set()  # sessions with an answer being graded
        self._busy_lock = threading.Lock()

    def _load(self, owner: str, session_id: str) -> Session:
        """The session, only for the browser that started it: another browser's id is
        answered exactly like an unknown one."""
        session = self.store.load(session_id) if session_id else None
        if session is None or not owner or session.owner != owner:
            raise InterviewerError("no interview in progress: press Start")
        return session

    def view(self, session: Session, note: str = "") -> View:
        chat: list[dict[str, str]] = []
        for n, t in enumerate(session.turns):
            chat.append({"role": "assistant", "content": t.prompt.text})
            if t.skipped:
                chat.append({"role": "user", "content": "(skipped)"})
                continue
            chat.append({"role": "user", "content": t.answer or "(empty)"})
            if t.grade:
                if closed_after(session, n):
                    result = question_result(session.turns[: n + 1], t.prompt.question_id)
                    said = f"Score {result.score}/5 — {result.feedback}"
                else:
                    said = f"Score so far {t.grade.score}/5."
                chat.append({"role": "assistant", "content": said})
        if session.current:
            label = (
                " _(follow-up worded offline: the LLM did not answer)_"
                if session.current.writer == "offline" and self.settings.grader == "llm"
                else ""
            )
            chat.append({"role": "assistant", "content": session.current.text + label})
        elif session.status == "ended":
            why = f" {session.end_reason}" if session.end_reason else ""
            chat.append(
                {
                    "role": "assistant",
                    "content": f"That's the end of the interview.{why} Your report is below.",
                }
            )
        if note:
            chat.append({"role": "assistant", "content": note})
        card, refs = grade_card(session, self.engine) if session.turns else ("", "")
        done = session.main_questions()
        # The counter counts main questions; a follow-up belongs to the question it follows.
        current = session.current
        number = done + (1 if current is not None and current.kind == "question" else 0)
        status = (
            f"Session {session.id} · {session.plan.mode} · question "
            f"{max(1, min(number, session.plan.length))}/{session.plan.length}"
            + (" · follow-up" if current is not None and current.kind == "follow_up" else "")
            if session.status == "active"
            else f"Session {session.id} · ended"
        )
        active = session.status == "active"
        report = "" if active else to_markdown(session, self.engine.bank, self.engine.rubric)
        return View(session.id, chat, card, refs, status, len(session.turns), active, report)

    def start(self, owner: str, topics: list[str], difficulty: str, mode: str, length: int) -> View:
        if not owner:
            raise InterviewerError("this browser has no key yet: reload the page")
        plan = Plan(tuple(topics or ()), difficulty, int(length), mode)  # type: ignore[arg-type]
        session = self.engine.start(plan, owner, self.store.asked_before(owner))
        self.store.save(session)
        return self.view(session)

    def answer(self, owner: str, session_id: str, text: str, turns_seen: int = -1) -> View:
        return list(self.answer_stream(owner, session_id, text, turns_seen))[-1]

    def answer_stream(
        self, owner: str, session_id: str, text: str, turns_seen: int = -1
    ) -> Iterator[View]:
        """Show the answer at once, then the follow-up as the LLM streams it, then the turn.
        One answer per turn: a second submit while one is graded, or an answer to a prompt
        that was already answered (`turns_seen` is what the page showed), is refused."""
        with self._busy_lock:
            if session_id in self._busy:
                raise InterviewerError("this answer is already being graded")
            self._busy.add(session_id)
        try:
            yield from self._answer(owner, session_id, text, turns_seen)
        finally:
            with self._busy_lock:
                self._busy.discard(session_id)

    def _answer(self, owner: str, session_id: str, text: str, turns_seen: int) -> Iterator[View]:
        session = self._load(owner, session_id)
        if session.status != "active":
            raise InterviewerError("this interview has ended: press Start for a new one")
        if not text.strip():
            raise InterviewerError("type or speak an answer first, or press Skip")
        if turns_seen >= 0 and turns_seen != len(session.turns):
            raise InterviewerError("that question was already answered; see the conversation")
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
            before.turns,
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
                    before.turns,
                )
            elif kind == "done":
                yield self.view(session)
                return
            else:
                raise value

    def command(self, owner: str, session_id: str, name: str) -> View:
        session = self._load(owner, session_id)
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

    def transcribe(self, owner: str, session_id: str, audio_path: str | None) -> str:
        if self.transcriber is None:
            raise InterviewerError("speech input is not installed: pip install 'interviewer[app]'")
        if not audio_path:
            raise InterviewerError("record or upload an answer first")
        question = ""
        if session_id and (s := self.store.load(session_id)) and s.owner == owner and s.current:
            question = s.current.text
        return self.transcriber.transcribe(Path(audio_path), question).text

    def report(self, owner: str, session_id: str) -> tuple[str, list[dict[str, Any]], list[str]]:
        session = self._load(owner, session_id)
        bank = self.engine.bank
        rubric_of = self.engine.rubric
        md, data = to_markdown(session, bank, rubric_of), to_json(session, bank, rubric_of)
        # Under the owner's hash (secret to its browser): nobody else can name the file.
        out = self.settings.data_dir / "reports" / owner
        out.mkdir(parents=True, exist_ok=True)
        paths = [out / f"{session.id}.{ext}" for ext in ("md", "json", "html")]
        paths[0].write_text(md, "utf-8")
        paths[1].write_text(json.dumps(data, indent=1), "utf-8")
        paths[2].write_text(printable_html(md, f"Interview report {session.id}"), "utf-8")
        rows = [{"topic": t, "score": s} for t, s in topic_scores(session, bank).items()]
        return md, rows, [str(p) for p in paths]

    def history(self, owner: str) -> tuple[list[list[Any]], str]:
        rows = [
            [
                s["id"],
                time.strftime("%Y-%m-%d %H:%M", time.localtime(s["created_at"])),
                s["status"],
                s["turns"],
                s["mean_score"],
            ]
            for s in self.store.sessions(owner)
        ]
        weak = weak_topics(self.store.topic_scores(owner), self.engine.bank)
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
        from .followups import LLMFollowUps
        from .llm import OpenAICompatible

        followups = LLMFollowUps(
            OpenAICompatible(settings.for_followups()), settings.followup_max_tokens
        )
    engine = Engine(index.bank, grader, index, settings, time.time, random.Random(), followups)
    problem = ping(settings) if settings.grader == "llm" else None
    llm_status = (
        (
            "Grading: an AI model on your LLM server"
            + (" (answering)." if problem is None else f" — not reachable right now: {problem}")
        )
        if settings.grader == "llm"
        else "Grading: the offline grader on this computer (no AI server needed)."
    )
    transcriber = None
    try:
        require("faster_whisper", "app")
        transcriber = Transcriber(
            settings.speech_model,
            settings.data_dir / "models",
            vocabulary_from([q.text for q in index.bank.questions]),
        )
    except InterviewerError:
        pass
    return Controller(
        settings, engine, Store(settings.data_dir / "sessions.sqlite3"), transcriber, llm_status
    )


def new_key() -> str:
    import secrets

    return secrets.token_urlsafe(24)


def owner_of(key: str) -> str:
    import hashlib

    return hashlib.sha256(key.encode()).hexdigest()[:32]


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
        # Once the interview is over, the answer box and the buttons that need it are off.
        live = gr.update(interactive=v.active)
        return (
            v.session_id,
            v.session_id,
            v.chat,
            v.card,
            v.references,
            v.status,
            gr.update(value="", interactive=v.active),
            v.turns,
            live,
            live,
            live,
            live,
            v.report,
        )

    topics = ctl.engine.bank.topics()
    with gr.Blocks(title="GPU / ML-infra mock interview", analytics_enabled=False) as demo:
        sid = gr.State("")
        owner = gr.State("")  # a hash of this browser's key: whose sessions these are
        seen = gr.State(-1)  # how many turns the page shows: an answer is for the next one
        # The browser's own key, made on its first visit; only its sessions open for it.
        key = gr.BrowserState(
            "", storage_key="interviewer-key", secret=browser_secret(ctl.settings.data_dir)
        )
        # A stable secret: the browser's remembered session must still decrypt after a restart.
        remembered = gr.BrowserState(
            "", storage_key="interviewer-session", secret=browser_secret(ctl.settings.data_dir)
        )
        gr.Markdown("# GPU · CUDA · ML-infrastructure mock interview", elem_id="title")
        with gr.Row():
            with gr.Column(scale=1):
                pick_topics = gr.CheckboxGroup(topics, label="Topics (none = all)")
                pick_diff = gr.Radio(
                    ["easy", "medium", "hard"], value="easy", label="Starting difficulty"
                )
                pick_mode = gr.Radio(
                    list(MODES), value="phone screen", label="Mode", elem_id="mode"
                )
                pick_len = gr.Slider(1, 15, value=5, step=1, label="Questions")
                start = gr.Button("Start interview", variant="primary", elem_id="start")
                gr.Markdown(ctl.llm_status, elem_id="grader-status")
            with gr.Column(scale=2):
                status = gr.Markdown("", elem_id="status")
                chat = gr.Chatbot(
                    label="Interview",
                    height=420,
                    elem_id="chat",
                    # The score and the next question are two messages, shown as two.
                    group_consecutive_messages=False,
                )
                answer = gr.Textbox(
                    label="Your answer (edit a transcript here before sending)",
                    lines=4,
                    elem_id="answer",
                )
                notice = gr.Markdown("", elem_id="notice")
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
            make_report = gr.Button(
                "Report and downloads (Markdown, JSON, printable HTML)", elem_id="build-report"
            )
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

        outs = [
            *(sid, remembered, chat, card, refs, status, answer, seen),
            *(send, skip, hint, repeat, report_md),
        ]
        start.click(
            guard(lambda o, t, d, m, n: show(ctl.start(o, t, d, m, n))),
            [owner, pick_topics, pick_diff, pick_mode, pick_len],
            outs,
        )

        def stream_answer(o: str, s: str, a: str, n: int) -> Iterator[tuple[Any, ...]]:
            """A mistake (empty answer, ended interview, double submit) is a short notice
            beside the input; the conversation and the typed draft stay as they were."""
            try:
                for view in ctl.answer_stream(o, s, a, n):
                    yield (*show(view), "")
            except InterviewerError as e:
                yield (*[gr.skip()] * len(outs), f"⚠️ {e}")

        send.click(stream_answer, [owner, sid, answer, seen], [*outs, notice])
        answer.submit(stream_answer, [owner, sid, answer, seen], [*outs, notice])
        for button, name in ((skip, "skip"), (hint, "hint"), (repeat, "repeat"), (end, "end")):
            button.click(guard(lambda o, s, n=name: show(ctl.command(o, s, n))), [owner, sid], outs)
        transcribe.click(guard(ctl.transcribe), [owner, sid, audio], [answer])

        def build_report(o: str, s: str) -> tuple[Any, ...]:
            md, rows, paths = ctl.report(o, s)
            import pandas as pd

            return md, pd.DataFrame(rows or [{"topic": "-", "score": 0}]), paths

        make_report.click(guard(build_report), [owner, sid], [report_md, chart, files])
        resume.click(
            guard(lambda o, r: show(ctl.view(ctl._load(o, r.strip())))), [owner, resume_id], outs
        )

        def on_load(saved: str, k: str) -> tuple[Any, ...]:
            k = k or new_key()
            o = owner_of(k)
            rows, text = ctl.history(o)
            session = ctl.store.load(saved) if saved else None
            if session is None or session.owner != o:
                blank: tuple[Any, ...] = (
                    *("", "", [], "", "", "Press Start to begin.", "", -1),
                    *[gr.update(interactive=True)] * 4,
                    "",
                )
                return (*blank, rows, text, k, o)
            return (*show(ctl.view(session)), rows, text, k, o)

        demo.load(on_load, [remembered, key], [*outs, history, weak, key, owner])
    return demo


def main(
    settings: Settings | None = None, host: str | None = None, port: int | None = None
) -> None:
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    settings = settings or Settings()
    # Uploads and Gradio's copies of files live under the data dir, not the system temp.
    os.environ.setdefault("GRADIO_TEMP_DIR", str(settings.data_dir / "gradio-tmp"))
    logins = read_logins(settings.auth_file) if settings.auth_file else None
    demo = build_ui(build_controller(settings))
    demo.queue(default_concurrency_limit=4).launch(
        server_name=host or settings.host,
        server_port=port or settings.port,
        allowed_paths=[str(settings.data_dir / "reports")],
        auth=logins,
        # The theme's bundled heading font draws "CUDA" as "CUDᴀ" in bold; system fonts do not.
        css="#title h1 {font-family: system-ui, 'DejaVu Sans', sans-serif;}",
        auth_message="Sign in with the name and password your team gave you." if logins else None,
    )


def read_logins(path: Path) -> list[tuple[str, str]]:
    """`user:password` per line (blank lines and `#` comments skipped) for Gradio's login."""
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read the login file ({e})") from e
    logins = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        user, sep, password = line.strip().partition(":")
        if not sep or not user or not password:
            raise InputError(f"{path}, line {n}: expected user:password")
        logins.append((user, password))
    if not logins:
        raise InputError(f"{path}: no user:password line")
    return logins
