"""One settings object, built at the edge (CLI, app) and passed down."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from .errors import InputError

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parent


def resource_dir(name: str) -> Path:
    """A data folder shipped in the wheel (interviewer/_data/NAME) or, in a checkout, REPO/NAME."""
    packaged = PACKAGE_DIR / "_data" / name
    return packaged if packaged.is_dir() else REPO_DIR / name


def _default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("interviewer", appauthor=False))


class Settings(BaseSettings):
    """Every knob, read from INTERVIEWER_* variables or passed in explicitly."""

    model_config = SettingsConfigDict(env_prefix="INTERVIEWER_", frozen=True, extra="ignore")

    data_dir: Path = Field(default_factory=_default_data_dir)
    database_url: str = ""  # sessions: a SQLAlchemy URL; empty: DATA_DIR/sessions.sqlite3
    corpus_dir: Path = Field(default_factory=lambda: resource_dir("corpus"))
    evaldata_dir: Path = Field(default_factory=lambda: REPO_DIR.parent / "shared" / "evaldata")
    # The in-domain eval set is the project's own: shipped in the wheel, evals/data in a checkout.
    indomain_file: Path = Field(
        default_factory=lambda: resource_dir("evals/data") / "indomain.jsonl"
    )

    # Retrieval. With a Chroma server URL (http://HOST:PORT) the index lives there, shared by
    # every instance, instead of in DATA_DIR/index.
    chroma_url: str = ""
    chunk_size: int = 700
    chunk_overlap: int = 100
    bank_match_threshold: float = 0.80
    relevance_threshold: float = 0.45

    # Grading
    grader: Literal["offline", "llm"] = "offline"
    # The offline claim checker's arithmetic. fp32: an answer's grade is the same whatever it
    # is batched with, on every machine. bf16 (auto: bf16 where the CPU has AMX): its NLI pass
    # 2.4x faster, but a verdict may then turn on its batch neighbours (README, Speed). Grades
    # name it ("+bf16").
    nli_precision: Literal["auto", "fp32", "bf16"] = "fp32"
    # What runs the fp32 checker: ONNX Runtime (2.5x faster on a CPU, the same probabilities
    # to 3e-6) or PyTorch, which also runs bf16 and training.
    nli_runtime: Literal["onnx", "torch"] = "onnx"
    max_answer_chars: int = 8000

    # LLM endpoint (vLLM or any OpenAI-compatible server)
    llm_base_url: str = "http://127.0.0.1:8000/v1"
    llm_model: str = "Qwen/Qwen2.5-7B-Instruct"
    llm_api_key: str = "EMPTY"
    llm_timeout_s: float = 60.0
    llm_max_tokens: int = 1536
    llm_max_retries: int = 3
    llm_seed: int = 1234
    llm_response_format: Literal["json_schema", "json_object"] = "json_schema"
    # For a base model without one (the CPU test model); a file with a Jinja chat template.
    llm_chat_template: Path | None = None

    # Live follow-ups may come from a second, smaller model (lower latency); unset: the grader's.
    followup_base_url: str | None = None
    followup_model: str | None = None
    followup_max_tokens: int = 80

    # The app
    host: str = "127.0.0.1"
    port: int = 7860
    speech_model: Literal["base", "tiny.en"] = "base"
    # Optional password login for a team deployment: a file of `user:password` lines.
    auth_file: Path | None = None

    # `--engine inprocess`: vllm.LLM in this process instead of a server
    llm_engine: Literal["server", "inprocess", "ray"] = "server"
    vllm_max_model_len: int = 8192
    vllm_allow_cpu: bool = False  # vLLM's CPU build, for tests only

    def for_followups(self) -> Settings:
        """These settings with the follow-up endpoint in the llm_* fields."""
        return self.model_copy(
            update={
                "llm_base_url": self.followup_base_url or self.llm_base_url,
                "llm_model": self.followup_model or self.llm_model,
                "llm_engine": "server",
            }
        )

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"


def load_settings(**overrides: Any) -> Settings:
    """The settings from INTERVIEWER_* variables; a bad value is an InputError that names the
    variable, for the edges to print (not a pydantic traceback)."""
    try:
        return Settings(**overrides)
    except ValidationError as e:
        bad = "; ".join(
            f"INTERVIEWER_{'_'.join(map(str, err['loc'])).upper()}={err.get('input')!r}: "
            f"{err['msg']}"
            for err in e.errors()
        )
        raise InputError(f"bad setting: {bad}") from e


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
