"""A real HTTP server speaking the OpenAI chat API, for tests: it answers from a script.

Only the LLM endpoint is faked; its answers are canned and never stand in for accuracy.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, Any] | Callable[[dict[str, Any]], tuple[int, Any]]


def completion(content: str, model: str = "fake-model") -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


def grade_json(points: list[dict[str, str]] | None = None, **over: Any) -> str:
    """A grade_v3 reply: verdicts per key point id, misconceptions, flags, feedback."""
    body = {
        "points": points
        if points is not None
        else [
            {"id": "s1", "verdict": "covered", "quote": "much more bandwidth than GDDR"},
            {"id": "s2", "verdict": "missed", "quote": ""},
        ],
        "misconceptions": [],
        "flags": [],
        "feedback": "Good. Mention cost.",
    } | over
    return json.dumps(body)


def answer_of(body: dict[str, Any]) -> str:
    user = next((m["content"] for m in body["messages"] if "<answer>" in m["content"]), "")
    return user.split("<answer>")[-1].split("</answer>")[0].strip()


def first_point_covered(body: dict[str, Any]) -> tuple[int, Any]:
    """A canned reply that fits any request: the first key point covered, quoting the
    answer's first words, the rest missed. Plumbing only, never accuracy."""
    fmt = body.get("response_format", {})
    schema = fmt.get("json_schema", {}).get("schema") or fmt.get("schema")
    if schema is None or "points" not in schema.get("properties", {}):
        return 200, completion("Could you say more about that?")
    ids = schema["properties"]["points"]["items"]["properties"]["id"]["enum"]
    quote = " ".join(answer_of(body).split()[:4])
    points = [
        {"id": i, "verdict": "covered" if n == 0 else "missed", "quote": quote if n == 0 else ""}
        for n, i in enumerate(ids)
    ]
    return 200, completion(grade_json(points))


class FakeLLM:
    """Start with `with FakeLLM() as llm:`; push replies with `llm.script.append(...)`."""

    def __init__(self, default: Reply | None = None, delay_s: float = 0.0) -> None:
        self.script: list[Reply] = []
        self.default = default or first_point_covered
        self.delay_s = delay_s
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": "fake-model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with fake._lock:
                    fake.requests.append(body)
                    reply = fake.script.pop(0) if fake.script else fake.default
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    if fake.delay_s:
                        time.sleep(fake.delay_s)
                    status, payload = reply(body) if callable(reply) else reply
                    if status == 0:  # hang past the client's timeout
                        time.sleep(float(payload))
                        status, payload = first_point_covered(body)
                    if body.get("stream") and status == 200 and isinstance(payload, dict):
                        self._stream(payload["choices"][0]["message"]["content"])
                    else:
                        self._send(status, payload)
                finally:
                    with fake._lock:
                        fake.in_flight -= 1

            def _stream(self, content: str) -> None:
                """Server-sent events, one chunk per word, as OpenAI-style servers stream."""
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                words = content.split(" ")
                for n, word in enumerate(words):
                    piece = word if n == len(words) - 1 else word + " "
                    chunk = {
                        "id": "c",
                        "object": "chat.completion.chunk",
                        "created": 0,
                        "model": "fake-model",
                        "choices": [
                            {"index": 0, "delta": {"content": piece}, "finish_reason": None}
                        ],
                    }
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                end = {
                    "id": "c",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": "fake-model",
                    "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                }
                self.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
                self.wfile.flush()

            def _send(self, status: int, payload: Any) -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeLLM:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


class FunctionChat:
    """An in-process chat model (pydantic-ai's FunctionModel, llm's MockModel): each reply is
    `reply(messages, schema)`. `batched=True` takes the path an in-process engine takes, every
    request of a chunk in one `complete_json_many` call. Records each call's conversations."""

    name = "function-model"

    def __init__(
        self, reply: Callable[[list[dict[str, str]], dict[str, Any] | None], str], batched: bool
    ) -> None:
        self.reply, self.batched = reply, batched
        self.calls: list[list[list[dict[str, str]]]] = []

    def complete_json(self, messages: Any, schema: dict[str, Any], max_tokens: int) -> str:
        return self.complete_json_many([messages], [schema], max_tokens)[0]

    def stream(self, messages: Any, max_tokens: int) -> Any:
        yield self.reply(messages, None)

    def complete_json_many(
        self, conversations: Any, schemas: list[dict[str, Any]], max_tokens: int
    ) -> list[str]:
        self.calls.append(list(conversations))
        return [self.reply(c, s) for c, s in zip(conversations, schemas, strict=True)]
