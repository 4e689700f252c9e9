"""What the page's events do: each handler takes the values of its inputs and returns those of
its outputs, in the order webapp.py wires them. `show` fills the page's `outs`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import gradio as gr

from .controller import Controller, View, new_key, owner_of
from .errors import InterviewerError

SHOWN = 14  # the values `show` returns: webapp's `outs`


def guard(fn: Callable[..., Any], outputs: int) -> Callable[..., Any]:
    """A mistake is one warning and the page stays as it was: a raised gr.Error would also
    mark every output of the event with a red "Error"."""

    def wrapped(*args: Any) -> Any:
        try:
            return fn(*args)
        except InterviewerError as e:
            gr.Warning(str(e))
            return (gr.skip(),) * outputs

    return wrapped


def show(v: View, keep_draft: bool = False, draft_text: str = "") -> tuple[Any, ...]:
    # Once the interview is over, the answer box and the buttons that need it are off; while
    # an answer is graded, the buttons wait for it. A hint, a repeat or End keeps what the
    # candidate has typed so far.
    live = gr.update(interactive=v.active and not v.busy)
    draft = (
        gr.update(interactive=v.active)
        if keep_draft
        else gr.update(value=draft_text, interactive=v.active)
    )
    return (
        *(v.session_id, v.session_id, v.chat, v.card, v.references, v.status, draft, v.turns),
        *(live, live, live, live, live, v.report),
    )


@dataclass(frozen=True)
class Handlers:
    """The page's event handlers over one Controller (`o` is the browser's owner hash, `s` the
    session id shown)."""

    ctl: Controller
    # Mixed into a signed-in account's owner hash: a name alone must not give its report files.
    salt: str = ""

    def past(self, o: str) -> tuple[Any, ...]:
        import pandas as pd

        p = self.ctl.history(o)
        plot = pd.DataFrame(p.progress, columns=["session", "started", "topic", "score", "shown"])
        # Session numbers as categories: on a number axis two sessions drew ticks 1, 1.5, 2
        # labelled "1, 2, 2" (a trial's screenshot); categories sort as text unless told.
        order = [str(n) for n in sorted(set(plot["session"]))]
        plot["session"] = plot["session"].astype(str)
        return p.sessions, p.weak, gr.update(value=plot, sort=order), p.review

    def fresh(self, v: View) -> tuple[Any, ...]:
        """A new interview: the last one's chart and files go."""
        return (*show(v), None, None)

    def start(self, o: str, s: str, topics: list[str], difficulty: str, mode: str, n: int) -> Any:
        view = self.ctl.start(o, topics, difficulty, mode, n)
        self._closed(o, s)
        return self.fresh(view)

    def review(self, o: str, s: str, mode: str, n: int) -> Any:
        view = self.ctl.review(o, mode, n)
        self._closed(o, s)
        return self.fresh(view)

    def _closed(self, o: str, s: str) -> None:
        """The interview on screen ends when a new one has started (not before: a start
        refused, with nothing due for review, leaves it as it was)."""
        if self.ctl.close(o, s):
            gr.Info(f"Interview {s} ended: its answers and report are under Past sessions.")

    def stream_answer(self, o: str, s: str, a: str, n: int) -> Iterator[tuple[Any, ...]]:
        """A mistake (empty answer, ended interview, double submit) is a short notice
        beside the input; the conversation and the typed draft stay as they were."""
        shown = False
        try:
            for view in self.ctl.answer_stream(o, s, a, n):
                shown = True
                yield (*show(view), "")
        except InterviewerError as e:
            if not shown:
                yield (*[gr.skip()] * SHOWN, f"⚠️ {e}")
            else:  # shown as being graded: the stored turns again, the answer in the box
                yield (*show(self.ctl.stored(o, s), draft_text=a), f"⚠️ {e}")

    def command(self, name: str) -> Callable[[str, str], tuple[Any, ...]]:
        """Skip, Hint, Repeat or End; all but Skip keep the typed draft."""
        return lambda o, s: show(self.ctl.command(o, s, name), keep_draft=name != "skip")

    def build_report(self, o: str, s: str) -> tuple[Any, ...]:
        import pandas as pd

        md, rows, paths = self.ctl.report(o, s)
        return md, pd.DataFrame(rows or [{"topic": "-", "score": 0}]), paths

    def session_report(self, o: str, v: View) -> tuple[Any, ...]:
        """The chart and files of the session shown: an ended one's, or none yet."""
        return self.build_report(o, v.session_id)[1:] if not v.active else (None, None)

    def after_turn(self, o: str, s: str) -> tuple[Any, ...]:
        """Past sessions kept current; at the end, the report and its files at once."""
        ended = bool(s) and (x := self.ctl.store.load(s)) is not None and x.status == "ended"
        report = self.build_report(o, s) if ended else (gr.skip(),) * 3
        return (*report, *self.past(o))

    def report_now(self, o: str, s: str) -> tuple[Any, ...]:
        try:
            return self.build_report(o, s)
        except InterviewerError as e:  # said where the report goes; nothing else changes
            return f"_{e}_", gr.skip(), gr.skip()

    def open_session(self, o: str, typed: str) -> tuple[Any, ...]:
        """Everything shown of a session is the opened one's: its chat, card, report, chart
        and files. An id that is not this browser's: one note, and the page as it was."""
        try:
            view = self.ctl.open(o, typed)
        except InterviewerError as e:
            return (*[gr.skip()] * (SHOWN + 3), f"⚠️ {e}")
        return (*show(view), *self.session_report(o, view), "", "")

    def on_load(self, saved: str, k: str, request: gr.Request) -> tuple[Any, ...]:
        """This browser's key (made on its first visit), its past sessions, and the session
        it had open, with that session's settings, chart and files. Signed in (a team's
        logins), the sessions are the account's: on a shared browser the next person to sign
        in sees none of the last one's, and the same person sees theirs on any browser."""
        k = k or new_key()
        user = getattr(request, "username", None)
        o = owner_of(f"{self.salt}:account:{user}") if user else owner_of(k)
        earlier = self.past(o)
        session = self.ctl.store.load(saved) if saved else None
        if session is None or session.owner != o:
            blank: tuple[Any, ...] = (
                *("", "", [], "", "", "Press Start to begin.", gr.skip(), -1),
                *[gr.update(interactive=False)] * 5,  # until an interview starts
                "",
            )
            return (*blank, *earlier, k, o, *[gr.skip()] * 6)
        view = self.ctl.view(session)
        shown = list(show(view))
        shown[6] = gr.update(interactive=view.active)  # the draft stays as the browser kept it
        plan = session.plan
        chosen = (list(plan.topics), plan.difficulty, plan.mode, plan.length)
        return (*shown, *earlier, k, o, *chosen, *self.session_report(o, view))
