"""Who words a follow-up: the rubric's probe (offline) or the LLM, streamed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from .llm import ChatModel
from .records import Question, ReferenceSet
from .rubrics import KeyPoint


class FollowUpWriter(Protocol):
    name: str

    def write(
        self,
        question: Question,
        answer: str,
        point: KeyPoint,
        refs: ReferenceSet,
        on_text: Callable[[str], None] | None = None,
    ) -> tuple[str, str]:
        """(follow-up text, name of the writer that produced it)."""
        ...


class OfflineFollowUps:
    """The rubric's probe for the missed key point: a natural question, written by hand,
    that draws the point out without stating it."""

    name = "offline"

    def write(
        self,
        question: Question,
        answer: str,
        point: KeyPoint,
        refs: ReferenceSet,
        on_text: Callable[[str], None] | None = None,
    ) -> tuple[str, str]:
        if on_text:
            on_text(point.probe)
        return point.probe, self.name


class LLMFollowUps:
    """The probe reworded by the LLM in light of what the candidate said
    (prompts/followup_v2.md), streamed as it comes. A rewording that gives the key point away,
    or a failed endpoint, falls back to the rubric's probe (writer="offline")."""

    name = "llm"

    def __init__(self, chat: ChatModel, max_tokens: int = 80) -> None:
        self.chat, self.max_tokens = chat, max_tokens
        self.fallback = OfflineFollowUps()

    def write(
        self,
        question: Question,
        answer: str,
        point: KeyPoint,
        refs: ReferenceSet,
        on_text: Callable[[str], None] | None = None,
    ) -> tuple[str, str]:
        from .errors import LLMError
        from .prompts import render
        from .rubric_review import shares_run

        safe = answer.replace("</answer>", "&lt;/answer&gt;")
        messages = [
            {"role": "system", "content": render("followup_v2")},
            {
                "role": "user",
                "content": render(
                    "followup_v2.user", question=question.text, probe=point.probe, answer=safe
                ),
            },
        ]
        text = ""
        try:
            for piece in self.chat.stream(messages, self.max_tokens):
                text += piece
                if on_text:
                    on_text(text)
        except LLMError:
            text = ""
        text = " ".join(text.split())
        if not text or shares_run(point.text, text, 5):
            return self.fallback.write(question, answer, point, refs, on_text)
        return text, self.name
