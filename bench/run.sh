#!/usr/bin/env bash
# bench/run.sh — builds the benchmark harnesses into build/bench/ and runs
# every benchmark in one go (bench/bench.mjs): the sampler step, the forward
# pass and the KV cache, in WASM SIMD, scalar WASM and native, interleaved;
# then the page in Chromium (bench/page.mjs, on the built dist/): Play at
# 60 tokens/s, slider -> bars, first load, the transformer from the service
# worker's cache; then our engine against wllama (llama.cpp in WebAssembly)
# in the same Chromium (bench/wllama.mjs; before it bench/gguf.mjs, the forward
# pass on each GGUF type and the quantized kernels, native and WASM SIMD); and
# the trainer (bench/train.mjs: training tokens/s against PyTorch, what a
# learner gets in 60 s in Chromium).  Prints a table and writes build/bench.json.  Budgets are goals, not tests:
# a missed one prints MISS and the script still exits 0.
#
# The harnesses are compiled from the engine's sources with build.sh's own
# flags (read from build.sh, so the two cannot drift apart).
#
#   BENCH_QUICK=1 bench/run.sh   fewer rounds (a smoke test, ~1 minute)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=build/bench
mkdir -p "$OUT"

say() { printf '\033[1m== %s\033[0m\n' "$*"; }

# ENGINE_SRC and CFLAGS_COMMON exactly as build.sh defines them
eval "$(awk '/^ENGINE_SRC=\(/{p=1} p{print} p&&/\)/{exit}' build.sh)"
eval "$(awk '/^CFLAGS_COMMON=\(/{p=1} p{print} p&&/\)/{exit}' build.sh)"
[ ${#ENGINE_SRC[@]} -gt 0 ] && [ ${#CFLAGS_COMMON[@]} -gt 0 ] || {
  echo "bench/run.sh: cannot read ENGINE_SRC / CFLAGS_COMMON from build.sh" >&2
  exit 1
}
BENCH_SRC=(bench/bench_core.c bench/bench_model.c bench/bench_spec.c)

say "bench: native harness ($OUT/bench-native)"
# build_native's flags
gcc -O2 "${CFLAGS_COMMON[@]}" -Wmissing-prototypes -Werror -Ibench \
  "${ENGINE_SRC[@]}" "${BENCH_SRC[@]}" bench/bench_native.c \
  -lm -o "$OUT/bench-native"

say "bench: the trainer's native harness ($OUT/bench-train-native)"
gcc -O2 "${CFLAGS_COMMON[@]}" -Wmissing-prototypes -Werror \
  "${ENGINE_SRC[@]}" bench/bench_train_native.c -lm -o "$OUT/bench-train-native"

build_wasm() { # simd|scalar — build_wasm's flags, the bench's exports
  local flavor=$1 simd=()
  [ "$flavor" = simd ] && simd=(-msimd128)
  say "bench: WASM ($flavor): $OUT/bench-$flavor.wasm"
  NODE_PATH=/usr/share/nodejs emcc -O3 "${simd[@]}" "${CFLAGS_COMMON[@]}" -Werror -Ibench \
    "${ENGINE_SRC[@]}" "${BENCH_SRC[@]}" \
    --no-entry -sSTANDALONE_WASM=1 -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2gb \
    -sERROR_ON_UNDEFINED_SYMBOLS=0 -sWARN_ON_UNDEFINED_SYMBOLS=0 \
    -sEXPORTED_FUNCTIONS=_malloc,_free -o "$OUT/bench-$flavor.raw.wasm"
  local features=(--mvp-features --enable-mutable-globals --enable-sign-ext)
  [ "$flavor" = simd ] && features+=(--enable-simd)
  wasm-opt -O3 "${features[@]}" "$OUT/bench-$flavor.raw.wasm" -o "$OUT/bench-$flavor.wasm"
  rm -f "$OUT/bench-$flavor.raw.wasm"
}
build_wasm simd
build_wasm scalar

say "bench: the model ($OUT/model.bin)"
"$OUT/bench-native" write-model "$OUT/model.bin"

# the same shape with stories15M's 32 000-token vocabulary (61 MB: more than
# the caches hold): the batched pass's budget (spec.mjs), and the page's
# 32 000-token model when the Llama 2 tokenizer fixture is there (page.mjs
# says so when it is not)
say "bench: the 32 000-token model ($OUT/model32k.bin)"
"$OUT/bench-native" write-model "$OUT/model32k.bin" 32000

say "bench: running (a few minutes; BENCH_QUICK=1 for a short run)"
node bench/bench.mjs

say "bench: the page in Chromium (bench/page.mjs)"
node bench/page.mjs

say "bench: training: tokens/s against PyTorch, 60 s in Chromium (bench/train.mjs)"
node bench/train.mjs

say "bench: GGUF models: each type's forward pass, the kernels, native and in Chromium (bench/gguf.mjs)"
node bench/gguf.mjs

say "bench: ours against wllama (llama.cpp in WebAssembly) in Chromium, each by its own clock (bench/wllama.mjs)"
node bench/wllama.mjs
