#!/usr/bin/env bash
# build.sh — sets up, builds, tests and serves the sampler playground.
#
#   ./build.sh            set up and build everything (build/, dist/ and the npm package)
#   ./build.sh serve      ... then serve the playground at http://127.0.0.1:8080/ (PORT overrides)
#   ./build.sh test       ... then run every test (./build.sh test c js e2e: those parts only;
#                         parts: c fuzz types js e2e oracle browsers parity)
#   ./build.sh bench      ... then run the benchmarks (build/bench.json)
#   ./build.sh fuzz SECS  ... then fuzz each loader and the warp parser for SECS seconds
#
# Setting up means: Debian packages that are missing are installed with
# apt-get when we are root (otherwise the exact command is printed), and
# node_modules comes from `npm ci`.  Nothing downloads a toolchain or a
# browser at run time.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$ROOT"
BUILD=build
CMD=${1:-build}

say() { printf '\033[1m== %s\033[0m\n' "$*"; }
die() { printf 'build.sh: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------- setup

# package:command pairs the build needs, and the ones only some steps need
REQUIRED=(gcc:gcc clang:clang emscripten:emcc binaryen:wasm-opt nodejs:node npm:npm python3:python3)
TEST_PACKAGES=(chromium:chromium firefox-esr:firefox-esr)
# WebKit (WebKitGTK's WebDriver, in an Xvfb), and miscfiles (the names list the
# bigram is trained on: the trainer's byte-for-byte test): their tests say
# why they skip without them; a CJK font, so Chinese is drawn (not boxes) in
# the browser tests' screenshots
OPTIONAL_PACKAGES=(python3-torch webkit2gtk-driver xvfb miscfiles fonts-noto-cjk)

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

apt_install() {
  if [ "$(id -u)" -ne 0 ]; then
    return 1
  fi
  if [ -z "${APT_UPDATED:-}" ]; then
    apt-get update -qq >/dev/null 2>&1 || true
    APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

ensure_packages() { # pkg:cmd ...
  local missing=()
  for pair in "$@"; do
    local pkg=${pair%%:*} cmd=${pair#*:}
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]}"
  apt_install "${missing[@]}" || die "missing ${missing[*]}: run  sudo apt-get install ${missing[*]}"
}

ensure_optional() { # pkg ... : install when we can, carry on when we cannot
  local missing=()
  for pkg in "$@"; do have_pkg "$pkg" || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]} (optional)"
  apt_install "${missing[@]}" || echo "build.sh: could not install ${missing[*]}; the tests that need it will skip (sudo apt-get install ${missing[*]})"
}

ensure_node_modules() {
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    say "npm ci"
    npm ci --no-audit --no-fund --loglevel=error
  fi
}

setup() {
  ensure_packages "${REQUIRED[@]}"
  ensure_node_modules
}

# ---------------------------------------------------------------- build

# The C sources, by folder: the engine, the command line, the
# command line's native and WASM hosts, the engine's WASM exports.
ENGINE_SRC=(c/engine/*.c c/engine/*/*.c)
# The page's engines (engine-*.wasm, engine-lite-*.wasm) leave out the
# trainer (c/engine/train): it comes with the training engine
# (engine-train-*.wasm), which the page loads when its Train card opens.
PAGE_ENGINE_SRC=()
for f in "${ENGINE_SRC[@]}"; do
  case $f in c/engine/train/*) ;; *) PAGE_ENGINE_SRC+=("$f") ;; esac
done
CLI_SRC=(c/cli/*.c)
CLI_NATIVE_SRC=(c/cli/native/*.c)
CLI_WASM_SRC=(c/cli/wasm/*.c)
WASM_API_SRC=(c/wasm/*.c)
WASM_TRAIN_SRC=(c/wasm/train/*.c)
# The lesson engine (engine-lite-*.wasm, what course chapters and embeds
# load): the engine without the GGUF reader, quantized kernels, byte-level
# BPE, pre-tokenizers, chat templates and Unicode tables; c/lite stands in
# for them (a GGUF file is refused with a message; weights are F32).  The
# rest is the same code, so the same seed gives the same text.
ENGINE_LITE_SRC=()
for f in "${PAGE_ENGINE_SRC[@]}"; do
  case $f in
    c/engine/model/gguf*.c | c/engine/model/unicode*.c | c/engine/model/pretok.c | \
    c/engine/model/bytebpe.c | c/engine/model/spm.c | c/engine/model/chat.c | \
    c/engine/kernels/qdot.c | c/engine/kernels/quant.c) ;;
    *) ENGINE_LITE_SRC+=("$f") ;;
  esac
done
ENGINE_LITE_SRC+=(c/lite/*.c)
# Determinism: IEEE arithmetic as written, no contraction into FMA, no fast-math.
CFLAGS_COMMON=(-std=c11 -Wall -Wextra -Wshadow -ffp-contract=off -fno-fast-math -Ic/engine)
WASM_EXPORTS=_malloc,_free

build_native() {
  say "native CLI: $BUILD/sampler"
  mkdir -p "$BUILD"
  gcc -O2 "${CFLAGS_COMMON[@]}" -Wmissing-prototypes -Werror "${ENGINE_SRC[@]}" "${CLI_SRC[@]}" "${CLI_NATIVE_SRC[@]}" -lm -o "$BUILD/sampler"
}

# The WASM builds, each in a SIMD and a scalar flavor: the engine the page
# loads (engine-*.wasm: c/engine and its exports c/wasm, no CLI code) and the
# command line for Node (cli-*.wasm: c/engine, c/cli and its WASM host).
# Each may import only what its JS loader provides (web/src/engine/engine.js,
# cli.js): the engine nothing but the memory-growth notice.
WASM_IMPORTS_ENGINE="env.emscripten_notify_memory_growth"
WASM_IMPORTS_CLI="$WASM_IMPORTS_ENGINE env.host_write env.host_file_size env.host_file_read env.host_file_write"

build_wasm() { # engine|engine-lite|engine-train|cli simd|scalar
  local what=$1 flavor=$2 simd=() src=() allowed
  [ "$flavor" = simd ] && simd=(-msimd128)
  if [ "$what" = engine ]; then
    src=("${PAGE_ENGINE_SRC[@]}" "${WASM_API_SRC[@]}")
    allowed=$WASM_IMPORTS_ENGINE
  elif [ "$what" = engine-lite ]; then
    src=("${ENGINE_LITE_SRC[@]}" "${WASM_API_SRC[@]}")
    allowed=$WASM_IMPORTS_ENGINE
  elif [ "$what" = engine-train ]; then
    # the whole engine and the trainer's exports: the training Worker's (it
    # samples from the model it trains, too)
    src=("${ENGINE_SRC[@]}" "${WASM_API_SRC[@]}" "${WASM_TRAIN_SRC[@]}")
    allowed=$WASM_IMPORTS_ENGINE
  else
    src=("${ENGINE_SRC[@]}" "${CLI_SRC[@]}" "${CLI_WASM_SRC[@]}")
    allowed=$WASM_IMPORTS_CLI
  fi
  local out="$BUILD/$what-$flavor"
  local opt=-O3
  say "WASM $what ($flavor): $out.wasm"
  if [ "$what" != cli ]; then
    # the page's engines are built for size (a page's budget: 200 KiB of
    # gzipped code with its engine) but for what runs per token: -O3 for
    # the kernels and the forward pass, -Oz for loading, parsing, the
    # sampler, the constraints and the decoders' bookkeeping (the sampler's
    # step takes tens of microseconds at 32 000 tokens, beside a forward
    # pass's milliseconds: this saves 6.2 KiB of the page's gzipped engine;
    # the bench times its own -O3 builds);
    # optimisation levels keep IEEE arithmetic as written, so the bits are
    # the same (tests/js/lite.test.js, the browser matrix against the CLI)
    local objs=() f o level
    mkdir -p "$out.obj"
    for f in "${src[@]}"; do
      case $what:$f in
        # (a row's conversion: once a token)
        engine:c/engine/kernels/quant.c) level=-Oz ;;
        # (the lesson engine runs the shipped models, a fraction of a
        # millisecond a token: only its matrix products optimised for
        # speed, at -O2, as fast there as -O3 and 4.4 KiB less to load)
        engine:c/engine/kernels/matmul.c) level=-O3 ;;
        engine-lite:c/engine/kernels/matmul.c) level=-O2 ;;
        engine:c/engine/kernels/* | engine:c/engine/model/transformer.c | engine:c/engine/model/gguf_model.c) level=-O3 ;;
        # (the trainer runs its passes for minutes: speed)
        engine-train:c/engine/kernels/* | engine-train:c/engine/model/transformer.c | engine-train:c/engine/train/*) level=-O3 ;;
        *) level=-Oz ;;
      esac
      o="$out.obj/$(echo "$f" | tr / _).o"
      NODE_PATH=/usr/share/nodejs emcc $level "${simd[@]}" "${CFLAGS_COMMON[@]}" -Werror -c "$f" -o "$o"
      objs+=("$o")
    done
    src=("${objs[@]}")
    [ "$what" = engine-lite ] && opt=-Oz
  fi
  NODE_PATH=/usr/share/nodejs emcc $opt "${simd[@]}" "${CFLAGS_COMMON[@]}" -Werror "${src[@]}" \
    --no-entry -sSTANDALONE_WASM=1 -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2gb \
    -sERROR_ON_UNDEFINED_SYMBOLS=0 -sWARN_ON_UNDEFINED_SYMBOLS=0 \
    -sEXPORTED_FUNCTIONS=$WASM_EXPORTS -o "$out.raw.wasm"
  local features=(--mvp-features --enable-mutable-globals --enable-sign-ext)
  [ "$flavor" = simd ] && features+=(--enable-simd)
  wasm-opt $opt "${features[@]}" "$out.raw.wasm" -o "$out.wasm"
  rm -rf "$out.raw.wasm" "$out.obj"
  node -e '
    const [file, ...allowed] = process.argv.slice(1);
    const m = new WebAssembly.Module(require("fs").readFileSync(file));
    const extra = WebAssembly.Module.imports(m).map(i => i.module + "." + i.name).filter(n => !allowed.includes(n));
    if (extra.length) { console.error(file + ": unexpected WASM imports: " + extra.join(" ")); process.exit(1); }
  ' "$out.wasm" $allowed
}

# The sampler's registry (every stage and parameter, declared once in
# c/engine/sampler/params.c) as a module the page, the Worker and the
# tests import: web/src/shared/registry.gen.js (generated, not committed).
build_registry() {
  say "the sampler's registry: web/src/shared/registry.gen.js"
  {
    echo "// Generated by build.sh from \`build/sampler params\` (the engine's registry,"
    echo "// c/engine/sampler/params.c): do not edit; it is rebuilt on every build."
    printf 'export default '
    "$BUILD/sampler" params
  } > web/src/shared/registry.gen.js.tmp
  mv web/src/shared/registry.gen.js.tmp web/src/shared/registry.gen.js
}

build_cli_wrapper() {
  cat > "$BUILD/sampler.mjs" <<'EOF'
// `node build/sampler.mjs ...`: the sampler CLI in WASM (written by build.sh)
import { main } from '../web/src/engine/node.js';
process.exitCode = await main(process.argv.slice(2));
EOF
}

build_web() {
  say "web: dist/"
  npx vite build --logLevel warn
}

build_package() {
  # the element as an npm package (package/): build/package/ and its tarball
  say "npm package: build/package/, build/sampler-playground-*.tgz"
  npx vite build --mode package --logLevel warn
  rm -f "$BUILD"/sampler-playground-*.tgz
  npm pack ./"$BUILD"/package --pack-destination "$BUILD" --loglevel=error >/dev/null
}

# Runs commands (each a function and its words) two at a time, JOBS=N
# for N: each build compiles its files one after another, and the
# machine has two cores.  Fails when any of them failed (its messages say).
two_at_a_time() {
  local running=0 failed=0 c
  for c in "$@"; do
    if [ $running -ge "${JOBS:-2}" ]; then wait -n || failed=1; running=$((running - 1)); fi
    $c &
    running=$((running + 1))
  done
  while [ $running -gt 0 ]; do wait -n || failed=1; running=$((running - 1)); done
  return $failed
}

build_all() {
  # the longest first
  two_at_a_time "build_wasm engine simd" "build_wasm engine scalar" "build_wasm cli simd" "build_wasm cli scalar" \
    "build_wasm engine-train simd" "build_wasm engine-train scalar" \
    "build_wasm engine-lite simd" "build_wasm engine-lite scalar" build_native || die "the build failed (see above)"
  build_registry
  build_cli_wrapper
  build_web
  build_package
}

# ---------------------------------------------------------------- test

SANITIZE=(-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)

test_c() {
  say "C tests (ASan + UBSan): build/tests/c_tests"
  mkdir -p "$BUILD/tests/obj"
  local failed=0 f o pids=() objs=() suites=() legacy=() name
  # A test file is a suite of named cases (tests/c/check.h: TEST_SUITE), all
  # linked once with the engine into one runner (tests/c/runner.c).  The
  # engine, the CLI, the native host and each test file compiled two at a
  # time; a file not yet written as a suite (its own main) is built and run
  # alone, as every test once was.
  compile() { # source object
    gcc "${SANITIZE[@]}" "${CFLAGS_COMMON[@]}" -Itests/c -Ic/cli -c "$1" -o "$2"
  }
  for f in "${ENGINE_SRC[@]}" "${CLI_SRC[@]}" c/cli/native/host_native.c tests/c/runner.c tests/c/test_*.c; do
    o="$BUILD/tests/obj/$(echo "${f%.c}" | tr / _).o"
    case $f in
      tests/c/test_*.c)
        if ! grep -q '^TEST_SUITE(' "$f"; then legacy+=("$f"); continue; fi
        suites+=("$(basename "$f" .c)") ;;
      tests/c/runner.c) ;;
      *) objs+=("$o") ;;
    esac
    compile "$f" "$o" &
    pids+=($!)
    if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}" || failed=1; pids=("${pids[@]:1}"); fi
  done
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
  [ $failed -eq 0 ] || { echo "FAILED: compiling the C tests"; return 1; }
  # the suites' table: test_NAME.c holds suite_NAME
  {
    echo '/* written by build.sh: the C test suites, one per tests/c/test_*.c */'
    echo '#include "check.h"'
    for name in "${suites[@]}"; do echo "extern const test_suite suite_${name#test_};"; done
    echo 'const test_suite *const test_suites[] = {'
    for name in "${suites[@]}"; do echo "    &suite_${name#test_},"; done
    echo '    0};'
  } > "$BUILD/tests/suites.c"
  local suite_objs=()
  for name in "${suites[@]}"; do suite_objs+=("$BUILD/tests/obj/tests_c_$name.o"); done
  gcc "${SANITIZE[@]}" "${CFLAGS_COMMON[@]}" -Itests/c "${objs[@]}" "$BUILD/tests/obj/tests_c_runner.o" "${suite_objs[@]}" \
    "$BUILD/tests/suites.c" -lm -o "$BUILD/tests/c_tests" || { echo "FAILED: linking the C tests"; return 1; }
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
    "$BUILD/tests/c_tests" "$ROOT" || failed=1
  local t status
  for t in "${legacy[@]}"; do
    name=$(basename "$t" .c)
    echo "== $name (its own main: not yet a TEST_SUITE, see tests/c/check.h)"
    status=0
    gcc "${SANITIZE[@]}" "${CFLAGS_COMMON[@]}" -Itests/c -Ic/cli "${objs[@]}" "$t" tests/c/runner_legacy.c -lm -o "$BUILD/tests/$name" &&
      ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 "$BUILD/tests/$name" "$ROOT" || status=$?
    [ $status -eq 0 ] || { echo "FAILED: $name"; failed=1; }
  done
  return $failed
}

test_python() {
  # exit 77 = skipped (no PyTorch): says why, and is not a failure
  say "the PyTorch reference reader against llama2.c, the engine against it (logits, attention, logit lens), the trainer against PyTorch"
  local failed=0 status
  for t in tests/py/test_llama2c_ref.py "tests/py/test_transformer_parity.py $BUILD/sampler" \
    "tests/py/test_inspect_parity.py $BUILD/sampler" "tests/py/test_train_torch.py $BUILD/sampler"; do
    status=0
    /usr/bin/python3 $t || status=$?
    [ $status -eq 0 ] || [ $status -eq 77 ] || failed=1
  done
  return $failed
}

test_types() {
  # every JavaScript file that says // @ts-check, through its JSDoc (tsconfig.json)
  say "types: tsc --noEmit"
  npx tsc --noEmit
}

test_js() {
  say "Vitest: the engine in Node, the UI's components"
  npx vitest run
}

test_e2e() {
  # end-to-end in Debian's Chromium, driven by playwright-core
  [ -f tests/e2e/vitest.config.js ] || return 0
  say "end-to-end in Chromium"
  npx vitest run --config tests/e2e/vitest.config.js
}

test_oracle() {
  # llama.cpp itself (@wllama/wllama in Chromium) as the oracle, on the GGUF
  # files the tests write into build/gguf/
  [ -f tests/oracle/vitest.config.js ] || return 0
  say "against llama.cpp (wllama in Chromium)"
  npx vitest run --config tests/oracle/vitest.config.js
}

test_browsers() {
  # the exactness matrix and the journeys in Chromium, Firefox and WebKit;
  # then the table of what each engine did (build/browsers/*.json)
  [ -f tests/browsers/vitest.config.js ] || return 0
  say "the playground in Chromium, Firefox and WebKit"
  local status=0
  npx vitest run --config tests/browsers/vitest.config.js || status=1
  node tests/browsers/table.mjs || status=1
  return $status
}

test_fuzz_short() {
  # each libFuzzer target for a few seconds (./build.sh fuzz SECS for longer)
  [ -x tests/fuzz/run.sh ] || return 0
  say "fuzzing (short)"
  # a fixed seed: the same inputs every run (./build.sh fuzz explores anew)
  FUZZ_SEED=${FUZZ_SEED:-20261124} tests/fuzz/run.sh "${FUZZ_SECONDS:-10}"
}

# The test parts, in the order a whole run takes them: a name, its function
# and what a failure is called.  `./build.sh test c js` runs only those parts.
TEST_PARTS=(c:test_c:C fuzz:test_fuzz_short:fuzz types:test_types:types js:test_js:Vitest
  e2e:test_e2e:e2e oracle:test_oracle:llama.cpp browsers:test_browsers:browsers parity:test_python:parity)

run_tests() { # [part ...]: every part when none is named
  local failed=() timings=() part name fn label t0 t1 status wanted=("$@")
  if [ ${#wanted[@]} -gt 0 ]; then
    for part in "${wanted[@]}"; do
      printf '%s\n' "${TEST_PARTS[@]}" | grep -q "^$part:" || die "unknown test part '$part' (one of: ${TEST_PARTS[*]%%:*})"
    done
  fi
  for part in "${TEST_PARTS[@]}"; do
    name=${part%%:*} fn=${part#*:} label=${fn#*:} fn=${fn%%:*}
    if [ ${#wanted[@]} -gt 0 ] && ! printf '%s\n' "${wanted[@]}" | grep -qx "$name"; then continue; fi
    t0=$(date +%s)
    status=ok
    $fn || { failed+=("$label"); status=FAILED; }
    t1=$(date +%s)
    timings+=("$(printf '%-9s %5d s  %s' "$name" $((t1 - t0)) "$status")")
  done
  # where the time went, so the next run knows what to make faster
  say "test timings (load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))"
  printf '  %s\n' "${timings[@]}"
  if [ ${#failed[@]} -ne 0 ]; then
    die "failed: ${failed[*]}"
  fi
  say "all tests passed"
}

# ---------------------------------------------------------------- serve

serve() {
  local port=${PORT:-8080}
  say "serving dist/ at http://127.0.0.1:$port/"
  exec npx vite preview --host 127.0.0.1 --port "$port" --strictPort
}

# ---------------------------------------------------------------- main

case "$CMD" in
  build)
    setup
    build_all
    ;;
  serve)
    setup
    build_all
    serve
    ;;
  test)
    setup
    ensure_packages "${TEST_PACKAGES[@]}"
    ensure_optional "${OPTIONAL_PACKAGES[@]}"
    build_all
    run_tests "${@:2}"
    ;;
  bench)
    setup
    build_all
    [ -x bench/run.sh ] || die "no benchmarks yet (bench/run.sh)"
    bench/run.sh
    ;;
  fuzz)
    setup
    ensure_packages clang:clang
    [ -x tests/fuzz/run.sh ] || die "no fuzz targets yet (tests/fuzz/run.sh)"
    tests/fuzz/run.sh "${2:-60}"
    ;;
  *)
    die "unknown command '$CMD' (build, serve, test, bench, fuzz SECONDS)"
    ;;
esac
