"""The Gradio mock interview: builds and wires the page. What each event does is in
page_handlers.py, the logic in the Controller and the engine."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .config import Settings, load_settings, read_logins
from .controller import Controller
from .embeddings import Embedder
from .errors import InterviewerError, require
from .index import Index
from .interview import Engine
from .page_js import COUNTDOWN_JS, DRAFT_JS
from .session import MODE_INFO, MODES
from .speech import Transcriber, vocabulary_from
from .store import Store


def build_controller(
    settings: Settings, embedder: Embedder, index: Index, store: Store, llm_status: str
) -> Controller:
    """Wire the real components (opened by `main`): grader, engine, speech."""
    from .grader import make_grader

    grader = make_grader(settings.grader, settings, embedder=embedder, index=index)
    followups: Any = None
    if settings.grader == "llm":
        from .followups import LLMFollowUps
        from .llm import OpenAICompatible

        followups = LLMFollowUps(
            OpenAICompatible(settings.for_followups()), settings.followup_max_tokens
        )
    engine = Engine(index.bank, grader, index, settings, time.time, random.Random(), followups)
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
    return Controller(settings, engine, store, transcriber, llm_status)


def grader_status(settings: Settings) -> str:
    """The page's line about who grades; with the LLM grader, whether its server answers."""
    if settings.grader != "llm":
        return "Grading: the offline grader on this computer (no AI server needed)."
    from .llm import ping

    problem = ping(settings)
    return "Grading: an AI model on your LLM server" + (
        " (answering)." if problem is None else f" — not reachable right now: {problem}"
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
    # Gradio reads GRADIO_TEMP_DIR when imported: only after `main` has set it.
    import gradio as gr

    from .page_handlers import SHOWN, Handlers, guard

    h = Handlers(ctl, browser_secret(ctl.settings.data_dir))
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
                    ["easy", "medium", "hard"],
                    value="easy",
                    label="Starting difficulty",
                    info="It goes up after a 4–5 and down after a 0–2.",
                    elem_id="difficulty",
                )
                pick_mode = gr.Radio(
                    list(MODES),
                    value="phone screen",
                    label="Mode",
                    info=MODE_INFO,
                    elem_id="mode",
                )
                pick_len = gr.Slider(1, 15, value=5, step=1, label="Questions")
                start = gr.Button("Start interview", variant="primary", elem_id="start")
                review_due = gr.Markdown("", elem_id="review-due")
                review = gr.Button("Review what I missed before", elem_id="review")
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
                with gr.Row():  # off until an interview is in progress
                    off: dict[str, Any] = {"interactive": False}
                    send = gr.Button("Send answer", variant="primary", elem_id="send", **off)
                    skip = gr.Button("Skip", elem_id="skip", **off)
                    hint = gr.Button("Hint", elem_id="hint", **off)
                    repeat = gr.Button("Repeat", elem_id="repeat", **off)
                    end = gr.Button("End", elem_id="end", **off)
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
            # Topics in name order, however the chart was redrawn on the way (a reopened session
            # must show the chart its end showed).
            chart = gr.BarPlot(x="topic", y="score", y_lim=[0, 5], sort="x", label="Score by topic")
            files = gr.File(
                label="Downloads (Markdown, JSON, printable HTML)",
                file_count="multiple",
                elem_id="downloads",
            )
        with gr.Accordion("Past sessions", open=False):
            history = gr.Dataframe(
                headers=[
                    "session",
                    "started",
                    "status",
                    "questions",
                    "skipped",
                    "mean score (answered)",
                ],
                interactive=False,
                elem_id="history",
            )
            weak = gr.Markdown("")
            # Points, not lines: a topic met in one session so far still shows. Topics tied in
            # a session are drawn a little apart (`progress.spread`); the tooltip has the score.
            progress = gr.ScatterPlot(
                x="session",
                y="shown",
                color="topic",
                y_lim=[-0.5, 5.5],
                y_title="mean score",
                x_title="session (1 = your first)",
                tooltip=["started", "topic", "score"],
                label="Progress: mean score per topic, session by session",
                elem_id="progress",
            )
            resume_id = gr.Textbox(label="Session id to resume or review", elem_id="resume-id")
            resume = gr.Button("Open session", elem_id="resume")
            resume_note = gr.Markdown("", elem_id="resume-note")

        outs = [
            *(sid, remembered, chat, card, refs, status, answer, seen),
            *(send, skip, hint, repeat, end, report_md),
        ]
        assert len(outs) == SHOWN
        past_outs = [history, weak, progress, review_due]
        picks = [pick_topics, pick_diff, pick_mode, pick_len]
        new_outs = [*outs, chart, files]
        start.click(
            guard(h.start, len(new_outs)), [owner, sid, *picks], new_outs, api_name="start"
        ).then(h.past, [owner], past_outs)
        review.click(
            guard(h.review, len(new_outs)), [owner, sid, pick_mode, pick_len], new_outs
        ).then(h.past, [owner], past_outs)
        report_outs = [report_md, chart, files, *past_outs]
        # Start and Review wait while an answer is graded: a session started meanwhile was
        # replaced on the page by the old one's grade when it came (a trial pressed Start).
        starts = [start, review]

        def starts_on(on: bool) -> Callable[[], tuple[Any, ...]]:
            return lambda: (gr.update(interactive=on),) * len(starts)

        # Named for HTTP clients (benchmarks/load.py): the page's own calls are the same.
        for event, named in ((send.click, True), (answer.submit, False)):
            event(starts_on(False), None, starts, queue=False, api_visibility="private").then(
                h.stream_answer,
                [owner, sid, answer, seen],
                [*outs, notice],
                api_name="answer" if named else None,
            ).then(
                h.after_turn,
                [owner, sid],
                report_outs,
                api_name="after_answer" if named else None,
            ).then(starts_on(True), None, starts, queue=False, api_visibility="private")
        for button, name in ((skip, "skip"), (hint, "hint"), (repeat, "repeat"), (end, "end")):
            button.click(guard(h.command(name), len(outs)), [owner, sid], outs).then(
                h.after_turn, [owner, sid], report_outs
            )
        transcribe.click(guard(ctl.transcribe, 2), [owner, sid, audio], [answer, notice])
        # The draft is kept in this browser until it is sent (restored by COUNTDOWN_JS).
        answer.change(
            None,
            [answer],
            None,
            js=DRAFT_JS,
        )
        make_report.click(h.report_now, [owner, sid], [report_md, chart, files])
        resume.click(h.open_session, [owner, resume_id], [*outs, chart, files, notice, resume_note])
        demo.load(
            h.on_load,
            [remembered, key],
            [*outs, *past_outs, key, owner, *picks, chart, files],
            api_name="load",
        )
    return demo


def main(
    settings: Settings | None = None, host: str | None = None, port: int | None = None
) -> None:
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    settings = settings or load_settings()
    # Uploads and Gradio's copies of files live under the data dir, not the system temp.
    os.environ.setdefault("GRADIO_TEMP_DIR", str(settings.data_dir / "gradio-tmp"))
    logins = read_logins(settings.auth_file) if settings.auth_file else None
    from .embeddings import default_embedder
    from .index import open_index
    from .ingest import ingest

    embedder = default_embedder()
    index = open_index(settings, embedder)
    if index.generation() is None:  # a first start: index the built-in guides
        ingest(settings, embedder)
    index.warm()
    store = Store.for_settings(settings).open()  # a wrong DATABASE_URL stops the start
    controller = build_controller(settings, embedder, index, store, grader_status(settings))
    demo = build_ui(controller)
    demo.queue(default_concurrency_limit=4).launch(
        server_name=host or settings.host,
        server_port=port or settings.port,
        allowed_paths=[str(settings.data_dir / "reports")],
        auth=logins,
        # The theme's bundled heading font draws "CUDA" as "CUDᴀ" in bold; system fonts do not.
        css="#title h1 {font-family: system-ui, 'DejaVu Sans', sans-serif;}",
        js=COUNTDOWN_JS,
        auth_message="Sign in with the name and password your team gave you." if logins else None,
    )
