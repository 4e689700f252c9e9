"""The LLM behind a small interface; the only module that knows about OpenAI-style APIs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from .config import Settings
from .errors import LLMError

Message = dict[str, str]


class ChatModel(Protocol):
    name: str

    def complete_json(
        self, messages: list[Message], schema: dict[str, Any], max_tokens: int
    ) -> str:
        """The raw text of a reply constrained to `schema`."""
        ...

    def stream(self, messages: list[Message], max_tokens: int) -> Iterator[str]:
        """Text deltas of a free-form reply."""
        ...


def response_format(schema: dict[str, Any], style: str) -> dict[str, Any]:
    """vLLM takes OpenAI's json_schema; llama.cpp's server takes json_object with a schema."""
    if style == "json_object":
        return {"type": "json_object", "schema": schema}
    return {"type": "json_schema", "json_schema": {"name": "grade", "schema": schema}}


class OpenAICompatible:
    """LangChain's ChatOpenAI pointed at vLLM or any OpenAI-compatible server.

    Retries with exponential backoff on connection errors, timeouts, 429 and 5xx come from the
    OpenAI client under ChatOpenAI (`max_retries`); after that the call raises LLMError.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.name = settings.llm_model

    def _client(self, max_tokens: int) -> Any:
        from langchain_openai import ChatOpenAI

        s = self.settings
        return ChatOpenAI(
            model=s.llm_model,
            base_url=s.llm_base_url,
            api_key=s.llm_api_key,  # type: ignore[arg-type]
            temperature=0.0,
            seed=s.llm_seed,
            max_tokens=max_tokens,  # type: ignore[call-arg]
            timeout=s.llm_timeout_s,
            max_retries=s.llm_max_retries,
            # ChatOpenAI sends max_completion_tokens; servers that predate it read max_tokens.
            extra_body={"max_tokens": max_tokens},
        )

    def complete_json(
        self, messages: list[Message], schema: dict[str, Any], max_tokens: int
    ) -> str:
        import openai

        fmt = response_format(schema, self.settings.llm_response_format)
        try:
            reply = self._client(max_tokens).invoke(messages, response_format=fmt)
        except (openai.APIError, openai.OpenAIError) as e:
            raise LLMError(f"LLM endpoint {self.settings.llm_base_url} failed: {_short(e)}") from e
        except ValueError as e:  # LangChain wraps some malformed replies in ValueError
            raise LLMError(f"LLM reply could not be read: {_short(e)}") from e
        return str(reply.content)

    def stream(self, messages: list[Message], max_tokens: int) -> Iterator[str]:
        import openai

        try:
            for chunk in self._client(max_tokens).stream(messages):
                if chunk.content:
                    yield str(chunk.content)
        except openai.OpenAIError as e:
            raise LLMError(f"LLM endpoint {self.settings.llm_base_url} failed: {_short(e)}") from e


def ping(settings: Settings, timeout: float = 2.0) -> str | None:
    """None when the endpoint answers /models, else a one-line reason."""
    import httpx

    try:
        r = httpx.get(
            f"{settings.llm_base_url.rstrip('/')}/models",
            timeout=timeout,
            headers={"Authorization": f"Bearer {settings.llm_api_key}"},
        )
    except httpx.HTTPError as e:
        return f"no answer from {settings.llm_base_url} ({type(e).__name__})"
    return None if r.status_code == 200 else f"{settings.llm_base_url} answered {r.status_code}"


def _short(e: Exception) -> str:
    text = " ".join(str(e).split())
    return text if len(text) < 300 else text[:297] + "..."
