"""The LLM behind a small interface; the only module that knows about OpenAI-style APIs."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any, Protocol

from .config import Settings
from .errors import LLMError

Message = dict[str, str]


class ChatModel(Protocol):
    name: str
    # True when many requests are best sent in one call (complete_json_many), as with an
    # in-process engine; False for a server, which a client keeps busy with parallel calls.
    batched: bool

    def complete_json(
        self, messages: list[Message], schema: dict[str, Any], max_tokens: int
    ) -> str:
        """The raw text of a reply constrained to `schema`."""
        ...

    def stream(self, messages: list[Message], max_tokens: int) -> Iterator[str]:
        """Text deltas of a free-form reply."""
        ...

    def complete_json_many(
        self, conversations: list[list[Message]], schemas: list[dict[str, Any]], max_tokens: int
    ) -> list[str]:
        """complete_json for many requests; raises LLMError if any of them fails."""
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

    batched = False

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.name = settings.llm_model
        self._lock = threading.Lock()
        self.output_tokens = 0  # for the benchmark's tokens/s

    def _count(self, tokens: int) -> None:
        with self._lock:
            self.output_tokens += tokens

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
        self._count((reply.usage_metadata or {}).get("output_tokens", 0))
        return str(reply.content)

    def complete_json_many(
        self, conversations: list[list[Message]], schemas: list[dict[str, Any]], max_tokens: int
    ) -> list[str]:
        return [
            self.complete_json(m, s, max_tokens)
            for m, s in zip(conversations, schemas, strict=True)
        ]

    def stream(self, messages: list[Message], max_tokens: int) -> Iterator[str]:
        import openai

        try:
            for chunk in self._client(max_tokens).stream(messages, stream_usage=True):
                if chunk.usage_metadata:
                    self._count(chunk.usage_metadata.get("output_tokens", 0))
                if chunk.content:
                    yield str(chunk.content)
        except openai.OpenAIError as e:
            raise LLMError(f"LLM endpoint {self.settings.llm_base_url} failed: {_short(e)}") from e


class InProcessVLLM:
    """vllm.LLM inside this process: each batch of requests is one `LLM.chat` call, which vLLM
    schedules together (the fastest path for thousands of answers). Needs the `vllm` package
    and a GPU; the engine loads on first use, not in the constructor."""

    batched = True

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.name = settings.llm_model
        self.output_tokens = 0
        self._llm: Any = None
        self._template: str | None = None
        self._lock = threading.Lock()

    def _engine(self) -> Any:
        with self._lock:
            if self._llm is None:
                path = self.settings.llm_chat_template
                try:
                    self._template = path.read_text("utf-8") if path else None
                except OSError as e:
                    raise LLMError(f"chat template {path} could not be read: {e}") from e
                self._llm = load_vllm(self.settings)
            return self._llm

    def _run(self, conversations: list[list[Message]], params: list[Any]) -> list[Any]:
        engine = self._engine()
        try:
            return list(
                engine.chat(conversations, params, use_tqdm=False, chat_template=self._template)
            )
        except (ValueError, RuntimeError) as e:  # e.g. a prompt longer than max_model_len
            raise LLMError(f"in-process vLLM failed: {_short(e)}") from e

    def complete_json_many(
        self, conversations: list[list[Message]], schemas: list[dict[str, Any]], max_tokens: int
    ) -> list[str]:
        from vllm import SamplingParams
        from vllm.sampling_params import StructuredOutputsParams

        params = [
            SamplingParams(
                temperature=0.0,
                seed=self.settings.llm_seed,
                max_tokens=max_tokens,
                structured_outputs=StructuredOutputsParams(json=schema),
            )
            for schema in schemas
        ]
        texts = []
        for out in self._run(conversations, params):
            done = out.outputs[0]
            self.output_tokens += len(done.token_ids)
            # As on the server path, a reply cut off at max_tokens is an error, not a guess (the
            # batch runner then grades that chunk one by one to pin it on its row).
            if done.finish_reason == "length":
                raise LLMError(f"a reply reached the length limit ({max_tokens} tokens)")
            texts.append(done.text)
        return texts

    def complete_json(
        self, messages: list[Message], schema: dict[str, Any], max_tokens: int
    ) -> str:
        return self.complete_json_many([messages], [schema], max_tokens)[0]

    def stream(self, messages: list[Message], max_tokens: int) -> Iterator[str]:
        from vllm import SamplingParams

        params = SamplingParams(temperature=0.0, seed=self.settings.llm_seed, max_tokens=max_tokens)
        yield self._run([messages], [params])[0].outputs[0].text


def require_vllm(settings: Settings) -> None:
    """Raise an LLMError that says what is missing unless vLLM can run here."""
    try:
        from vllm.platforms import current_platform
    except ImportError as e:
        raise LLMError(
            "--engine inprocess needs vLLM in this environment and a GPU: "
            "pip install -e '.[vllm]' on a CUDA machine, or serve the model with `vllm serve` "
            f"and use --engine server [{_short(e)}]"
        ) from e
    if current_platform.is_cpu():
        if not settings.vllm_allow_cpu:
            raise LLMError(
                "--engine inprocess found no GPU (vLLM's CPU build is installed); it runs on a "
                "CPU only for testing: set INTERVIEWER_VLLM_ALLOW_CPU=1 to run it anyway"
            )
    elif not current_platform.is_cuda_alike():
        raise LLMError(f"--engine inprocess found no GPU that vLLM can use ({current_platform})")


def load_vllm(settings: Settings) -> Any:
    require_vllm(settings)
    import vllm
    from vllm.platforms import current_platform

    return vllm.LLM(
        model=settings.llm_model,
        enforce_eager=current_platform.is_cpu(),  # CUDA graphs are a GPU feature
        **vllm_engine_kwargs(settings),
    )


def vllm_engine_kwargs(settings: Settings) -> dict[str, Any]:
    """The vLLM engine's settings, in this process or on Ray workers (`ray_batch`)."""
    return {
        "seed": settings.llm_seed,
        "max_model_len": settings.vllm_max_model_len,
        "enable_prefix_caching": True,
        # Engine-wide, as `vllm serve --structured-outputs-config`: the per-request flag is not
        # enough, and free whitespace lets a weak model pad a JSON reply until max_tokens.
        "structured_outputs_config": {"backend": "xgrammar", "disable_any_whitespace": True},
    }


def make_chat(settings: Settings) -> ChatModel:
    """The chat model that settings.llm_engine names."""
    if settings.llm_engine == "inprocess":
        require_vllm(settings)  # fail before a batch starts, not once per row
        return InProcessVLLM(settings)
    return OpenAICompatible(settings)


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
