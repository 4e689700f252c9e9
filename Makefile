# Two commands on a fresh machine:  `make app` (install everything, build the index, start the
# app)  and  `make test` (install what the tests need, then lint, type-check and test).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | sha1sum | cut -c1-10)

.PHONY: app test lint check bench evals system-deps

$(STAMP):
	$(PYTHON) -m venv $(VENV)
	# The CPU build of torch first: a bare `torch` requirement would pull GBs of CUDA wheels.
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $@

# Debian packages the tests drive for real: Chromium (browser tests), espeak-ng (speech tests),
# PostgreSQL (the session store's tests start a throwaway server of their own).
system-deps:
	@if ! command -v chromium >/dev/null || ! command -v espeak-ng >/dev/null \
	    || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    chromium espeak-ng postgresql >/dev/null; fi

app: $(STAMP)
	$(BIN)/interviewer ingest --quiet || echo "some documents were skipped: see the warnings above"
	$(BIN)/interviewer app

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The live LLM tests use a real vLLM server on the CPU (vllm_cpu/serve.sh: its own venv and the
# Gemma 3 270M model from PyPI, about 4 minutes the first time). It is set up and started in the
# background while the install, lint and the other tests run, and stopped afterwards whatever
# the outcome (its log: .data/vllm-start.log).
test:
	@mkdir -p .data
	bash vllm_cpu/serve.sh start >.data/vllm-start.log 2>&1 & \
	$(MAKE) --no-print-directory $(STAMP) system-deps lint && \
	INTERVIEWER_TEST_VLLM=start $(BIN)/pytest; \
	rc=$$?; bash vllm_cpu/serve.sh stop >/dev/null 2>&1; exit $$rc

bench: $(STAMP)
	$(BIN)/python -m benchmarks
	$(BIN)/python -m benchmarks.load
	$(BIN)/python -m benchmarks.ray_batch

evals: $(STAMP)
	$(BIN)/interviewer eval mohler --split report --out out/evals/mohler
