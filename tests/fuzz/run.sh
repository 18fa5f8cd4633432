#!/usr/bin/env bash
# tests/fuzz/run.sh SECONDS — builds the libFuzzer targets (clang,
# -fsanitize=fuzzer,address,undefined) and runs each for SECONDS seconds on
# a scratch copy of its seed corpus (build/fuzz/corpus/<target>; the
# committed tests/fuzz/corpus/ never grows).  Prints one line per target
# (executions, speed, coverage) and fails on any crash, leak, timeout or
# sanitizer report; the input that caused it is kept in build/fuzz/.
#
#   FUZZ_JOBS=N      targets run N at a time (default 2)
#   FUZZ_TARGETS="fuzz_bigram fuzz_oom"   a subset
#   FUZZ_SEED=N      libFuzzer's -seed (default: a fresh one each run);
#                    ./build.sh test passes a fixed one, so a test run
#                    explores the same inputs every time
#
# ./build.sh fuzz SECONDS and ./build.sh test (10 s each) call this.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
SECS=${1:-10}
case "$SECS" in ''|*[!0-9]*) echo "usage: tests/fuzz/run.sh SECONDS" >&2; exit 2;; esac
OUT=build/fuzz
JOBS=${FUZZ_JOBS:-2}
TARGETS=(${FUZZ_TARGETS:-fuzz_bigram fuzz_checkpoint fuzz_tokenizer fuzz_gguf fuzz_gguf_tokenizer fuzz_warp_request fuzz_generate fuzz_oom})
CC=${FUZZ_CC:-clang}
mkdir -p "$OUT/obj" "$OUT/obj-oom" "$OUT/artifacts"

# ---------------------------------------------------------------- toolchain

probe() {
  printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > "$OUT/probe.c"
  "$CC" -fsanitize=fuzzer,address,undefined "$OUT/probe.c" -o "$OUT/probe" >/dev/null 2>&1
}
if ! command -v "$CC" >/dev/null 2>&1; then
  echo "tests/fuzz/run.sh: $CC not found: sudo apt-get install clang libclang-rt-14-dev" >&2
  exit 1
fi
if ! probe; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "tests/fuzz/run.sh: clang's libFuzzer runtime is missing; installing libclang-rt-14-dev"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libclang-rt-14-dev >/dev/null || true
  fi
  if ! probe; then
    echo "tests/fuzz/run.sh: clang cannot link -fsanitize=fuzzer: sudo apt-get install libclang-rt-14-dev" >&2
    exit 1
  fi
fi

# ---------------------------------------------------------------- build

# the engine, the command line and its native host (no main: each target has its own)
ENGINE=(c/engine/*.c c/engine/*/*.c c/cli/*.c c/cli/native/host_native.c)
FLAGS=(-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
       -fno-omit-frame-pointer -ffp-contract=off -fno-fast-math -std=c11 -Ic/engine -Ic/cli -Itests/fuzz)
HEADERS=(c/engine/*.h c/engine/*/*.h c/cli/*.h tests/fuzz/*.h)

newer_than() { # file dep... : whether any dep is newer than file (or file missing)
  local f=$1; shift
  [ -e "$f" ] || return 0
  for d in "$@"; do [ "$d" -nt "$f" ] && return 0; done
  return 1
}

compile_engine() { # dir extra-flags...
  local dir=$1; shift
  local pids=() objs=()
  for src in "${ENGINE[@]}"; do
    # named by path: two folders may each have a kernels.c or a step.c
    local rel=${src%.c}
    local obj="$dir/${rel//\//_}.o"
    objs+=("$obj")
    if newer_than "$obj" "$src" "${HEADERS[@]}"; then
      "$CC" "${FLAGS[@]}" "$@" -c "$src" -o "$obj" &
      pids+=($!)
      if [ ${#pids[@]} -ge "$JOBS" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
    fi
  done
  for p in "${pids[@]}"; do wait "$p"; done
  # objects of sources that are gone (or moved) would be linked in: drop them
  local keep=" ${objs[*]} "
  for obj in "$dir"/*.o; do
    [ -e "$obj" ] || continue
    [[ "$keep" == *" $obj "* ]] || rm -f "$obj"
  done
}

echo "fuzz: building ${#TARGETS[@]} targets ($CC, libFuzzer + ASan + UBSan)"
compile_engine "$OUT/obj"
compile_engine "$OUT/obj-oom" -include tests/fuzz/failalloc.h
for t in "${TARGETS[@]}"; do
  objdir="$OUT/obj"
  [ "$t" = fuzz_oom ] && objdir="$OUT/obj-oom"
  if newer_than "$OUT/$t" "tests/fuzz/$t.c" "${HEADERS[@]}" "$objdir"/*.o; then
    extra=()
    [ "$t" = fuzz_oom ] && extra=(-include tests/fuzz/failalloc.h)
    "$CC" "${FLAGS[@]/fuzzer-no-link/fuzzer}" "${extra[@]}" "tests/fuzz/$t.c" "$objdir"/*.o -lm -o "$OUT/$t"
  fi
done

# ---------------------------------------------------------------- run

max_len() {
  case "$1" in
    fuzz_checkpoint) echo 16384 ;;
    fuzz_gguf) echo 32768 ;; # the seeds: small models of every weight type, up to 32 KB
    fuzz_bigram) echo 8192 ;;
    *) echo 4096 ;;
  esac
}

run_target() { # target
  local t=$1 corpus="$OUT/corpus/$1" log="$OUT/$1.log"
  rm -rf "$corpus"
  mkdir -p "$corpus"
  cp tests/fuzz/corpus/"$t"/* "$corpus"/
  local dict=()
  [ "$t" = fuzz_warp_request ] && dict=(-dict=tests/fuzz/warp_request.dict)
  local seed=()
  [ -n "${FUZZ_SEED:-}" ] && seed=(-seed="$FUZZ_SEED")
  local status=0
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:abort_on_error=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$OUT/$t" -max_total_time="$SECS" -print_final_stats=1 -timeout=10 \
      -rss_limit_mb=2048 -max_len="$(max_len "$t")" -detect_leaks=1 \
      -artifact_prefix="$OUT/artifacts/$t-" "${seed[@]}" "${dict[@]}" "$corpus" \
      >"$log" 2>&1 || status=$?
  echo "$status" > "$OUT/$t.status"
}

summary() { # target
  local t=$1 log="$OUT/$1.log" status
  status=$(cat "$OUT/$t.status" 2>/dev/null || echo 1)
  local execs rate cov ft corp
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  corp=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  local verdict=ok
  if [ "$status" != 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|deadly signal|invariant broken' "$log"; then
    verdict=FAILED
  fi
  printf '%-18s %-6s %9s execs %7s/s  cov %5s  ft %6s  corpus %4s\n' \
    "$t" "$verdict" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}"
  if [ "$verdict" != ok ]; then
    echo "---- $log (tail) ----"
    tail -40 "$log"
    ls "$OUT/artifacts/" 2>/dev/null | grep "^$t-" | sed "s|^|  input kept: $OUT/artifacts/|"
    return 1
  fi
}

echo "fuzz: ${#TARGETS[@]} targets x ${SECS} s, $JOBS at a time"
pids=()
for t in "${TARGETS[@]}"; do
  run_target "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$JOBS" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done

failed=0
for t in "${TARGETS[@]}"; do summary "$t" || failed=1; done
if [ $failed -ne 0 ]; then
  echo "fuzz: FAILED (logs in $OUT/)" >&2
  exit 1
fi
echo "fuzz: all targets clean"
