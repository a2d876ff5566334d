#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run):
#   1. install missing Debian packages (scripts/common.sh)
#   2. Release build (Ninja) + ctest                          -> build/
#   3. ASan+UBSan build (-DHLO_SANITIZE=ON) + ctest           -> build-asan/
#   4. ThreadSanitizer build (-DHLO_SANITIZE=thread) of backend_cpu_tests only,
#      running the thread pool, executor and collective tests  -> build-tsan/
#   5. libFuzzer build with clang-14 + a bounded fuzzing run of each target
#      (parser, proto readers, CPU backend)                    -> build-fuzz/
#   6. XLA:CPU peer comparison (ctest label xla-peer): sets up the pinned
#      jax/jaxlib environment (scripts/peer-setup.sh) and compares hlo-run
#      with XLA on the standard suite (tools/xla_peer.py)
# Every stage runs even if an earlier one failed; the exit status is
# non-zero if any stage failed.
#
# Knobs: JOBS (2), FUZZ_SECONDS (60), HLO_TEST_SANITIZE=0 / HLO_TEST_TSAN=0 /
# HLO_TEST_FUZZ=0 / HLO_TEST_PEER=0 to skip stages 3 / 4 / 5 / 6, HLO_SKIP_DEPS=1,
# BUILD_DIR / ASAN_BUILD_DIR / TSAN_BUILD_DIR / FUZZ_BUILD_DIR, HLO_SHARED_DIR
# (default ../shared beside the checkout).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ASAN_BUILD_DIR="${ASAN_BUILD_DIR:-$ROOT/build-asan}"
FUZZ_BUILD_DIR="${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
TSAN_BUILD_DIR="${TSAN_BUILD_DIR:-$ROOT/build-tsan}"
# The tests that run threads of ours: the pool, the executor's devices
# (collectives run one thread per device) and the kernels that split work
# over the pool. Not the OpenBLAS/oneDNN/FFTW ones: those libraries are
# not instrumented, so TSan cannot see their synchronisation. Left out: three
# single-threaded accuracy sweeps that take two minutes under TSan.
TSAN_GTEST_FILTER="${TSAN_GTEST_FILTER:-ThreadPoolTest.*:Collective*:RaggedAllToAll.*:DataMovement*:Reduction*:ElementwiseDispatchTest.*:RngBlocks.*:MemoryEstimate.*:Executable*\
-ReductionReduceWindowRows.ThreadCountDoesNotChangeBits:ReductionReduceWindowRows.PoolingFastEqualsGeneric:\
ElementwiseDispatchTest.F32LogAccuracyAndSpecials}"
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
SHARED_DIR="${HLO_SHARED_DIR:-$ROOT/../shared}"

# Sanitizer reports must fail loudly, also under lit's `not` (which only
# tolerates a plain non-zero exit, not an abort).
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}"

CMAKE_COMMON=()
if [[ -n "${HLO_SHARED_DIR:-}" ]]; then CMAKE_COMMON+=("-DHLO_SHARED_DIR=$HLO_SHARED_DIR"); fi

declare -a RESULTS=()
FAILED=0
run_stage() {  # run_stage NAME COMMAND...
  local name="$1" start=$SECONDS rc
  shift
  log "stage: $name"
  ( set -e; "$@" )
  rc=$?
  local took=$((SECONDS - start))
  if [[ $rc -eq 0 ]]; then
    RESULTS+=("PASS  $name (${took}s)")
  else
    RESULTS+=("FAIL  $name (${took}s, exit $rc)")
    FAILED=1
  fi
  return 0
}

run_ctest() {  # run_ctest BUILD_DIR [ctest args...]
  local dir="$1"
  shift
  ctest --test-dir "$dir" --output-on-failure -j"$JOBS" "$@" </dev/null
}

stage_release() {
  configure_and_build "$BUILD_DIR" "" "${CMAKE_COMMON[@]}"
  # The XLA comparison is its own stage (it needs the peer environment).
  run_ctest "$BUILD_DIR" -LE xla-peer
}

stage_peer() {
  bash "$ROOT/scripts/peer-setup.sh"
  run_ctest "$BUILD_DIR" -L xla-peer
  # The comparison's own summary (counts per status, unexplained ones).
  grep -E "^(XLA peer comparison|xla-peer:|UNEXPLAINED)" \
    "$BUILD_DIR/Testing/Temporary/LastTest.log" 2>/dev/null || true
}

stage_asan() {
  # LeakSanitizer needs ptrace-like thread suspension, which some container
  # set-ups forbid ("LeakSanitizer has encountered a fatal error"). Probe it
  # once and turn leak checking off (loudly) if it cannot work here.
  local probe_dir
  probe_dir="$(mktemp -d)"
  printf 'int main() { return 0; }\n' > "$probe_dir/p.cc"
  if c++ -fsanitize=address "$probe_dir/p.cc" -o "$probe_dir/p" 2>/dev/null &&
     ! ASAN_OPTIONS=detect_leaks=1 "$probe_dir/p" >/dev/null 2>&1; then
    echo "warning: LeakSanitizer does not work in this environment; running with detect_leaks=0" >&2
    export ASAN_OPTIONS="${ASAN_OPTIONS//detect_leaks=1/detect_leaks=0}"
  fi
  rm -rf "$probe_dir"
  configure_and_build "$ASAN_BUILD_DIR" "" -DHLO_SANITIZE=ON -DHLO_BUILD_BENCH=OFF \
    "${CMAKE_COMMON[@]}"
  # The real models and the optimized-vs-unoptimized sweeps run in the
  # Release stage; under the sanitizers they would take most of CI's time.
  run_ctest "$ASAN_BUILD_DIR" -LE 'models|equivalence|xla-peer'
}

stage_tsan() {
  # Only the one test binary: the stage stays short (no tools, no lit).
  configure_and_build "$TSAN_BUILD_DIR" backend_cpu_tests -DHLO_SANITIZE=thread \
    -DHLO_BUILD_BENCH=OFF "${CMAKE_COMMON[@]}"
  # halt_on_error: the first report fails the stage.
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" \
    "$TSAN_BUILD_DIR/backend_cpu/backend_cpu_tests" --gtest_filter="$TSAN_GTEST_FILTER" --gtest_brief=1 </dev/null
}

stage_fuzz() {
  local targets="hlo_parse_fuzzer hlo_run_fuzzer"
  if protoc --version >/dev/null 2>&1; then targets="$targets hlo_proto_fuzzer"; fi
  configure_and_build "$FUZZ_BUILD_DIR" "$targets" -DHLO_BUILD_FUZZ=ON \
    -DHLO_BUILD_BENCH=OFF -DCMAKE_CXX_COMPILER=clang++-14 "${CMAKE_COMMON[@]}"
  local work="$FUZZ_BUILD_DIR/fuzz-run"
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/artifacts"
  # Seeds are read in place; new inputs go to $work/corpus only.
  local seeds=("$ROOT/testdata")
  local d
  for d in parser/valid parser/invalid models passtests; do
    if [[ -d "$SHARED_DIR/corpus/$d" ]]; then seeds+=("$SHARED_DIR/corpus/$d"); fi
  done
  # -timeout=120: inputs that materialise large elided constants legitimately
  # take tens of seconds under ASan+UBSan+coverage; a real hang still fails.
  log "fuzzing for ${FUZZ_SECONDS}s (seeds: ${seeds[*]})"
  run_fuzzer "$FUZZ_BUILD_DIR/parser/hlo_parse_fuzzer" "$work" "${seeds[@]}"
  if [[ -x "$FUZZ_BUILD_DIR/proto/hlo_proto_fuzzer" ]]; then
    fuzz_protos "$work"
  fi
  fuzz_backend "$work"
}

# The CPU backend (backend_cpu/run_fuzzer.cc), seeded with the test
# modules, one module a file (the `// -----` files split), and 100
# hlo-gen modules.
fuzz_backend() {
  local work="$1/run" f name
  mkdir -p "$work/corpus" "$work/seeds" "$work/artifacts"
  while IFS= read -r f; do
    name="${f#"$ROOT"/testdata/}"
    name="${name//\//_}"
    awk -v base="$work/seeds/${name%.hlo}" '
      BEGIN { n = 0; out = base "-0.hlo" }
      /^\/\/ -----[[:space:]]*$/ { close(out); n++; out = base "-" n ".hlo"; next }
      { print > out }' "$f"
  done < <(find "$ROOT/testdata" -name '*.hlo' -not -path '*/fuzz/*')
  # Generated modules (every op group, when the release build has hlo-gen).
  if [[ -x "$BUILD_DIR/tools/hlo-gen" ]]; then
    for f in $(seq 0 99); do
      "$BUILD_DIR/tools/hlo-gen" --seed="$f" -o "$work/seeds/gen-$f.hlo" 2>/dev/null || true
    done
  fi
  log "fuzzing the CPU backend for ${FUZZ_SECONDS}s ($(ls "$work/seeds" | wc -l) seed modules)"
  run_fuzzer "$FUZZ_BUILD_DIR/backend_cpu/hlo_run_fuzzer" "$work" "$work/seeds"
}

# The proto readers (proto/proto_fuzzer.cc), seeded with the test modules
# written as protos by the release build's hlo-opt (when there is one).
fuzz_protos() {
  local work="$1/proto" f
  mkdir -p "$work/corpus" "$work/seeds" "$work/artifacts"
  if [[ -x "$BUILD_DIR/tools/hlo-opt" ]]; then
    for f in "$ROOT"/testdata/parse/*.hlo "$ROOT"/testdata/examples/*.hlo; do
      "$BUILD_DIR/tools/hlo-opt" --emit=proto "$f" -o "$work/seeds/$(basename "$f").pb" 2>/dev/null || true
      "$BUILD_DIR/tools/hlo-opt" --emit=pbtxt "$f" -o "$work/seeds/$(basename "$f").pbtxt" 2>/dev/null || true
    done
  fi
  log "fuzzing the proto readers for ${FUZZ_SECONDS}s"
  run_fuzzer "$FUZZ_BUILD_DIR/proto/hlo_proto_fuzzer" "$work" "$work/seeds"
}

# run_fuzzer BINARY WORKDIR SEED_DIR...: new inputs go to WORKDIR/corpus,
# crashes to WORKDIR/artifacts.
run_fuzzer() {
  local bin="$1" work="$2"
  shift 2
  "$bin" -max_total_time="$FUZZ_SECONDS" -timeout=120 -rss_limit_mb=3072 -max_len=131072 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" "$@" </dev/null
}

START=$SECONDS
ensure_deps || { echo "error: could not install the Debian packages" >&2; exit 1; }
run_stage "release build + ctest" stage_release
if [[ "${HLO_TEST_PEER:-1}" == 1 ]]; then
  run_stage "XLA:CPU peer comparison" stage_peer
fi
if [[ "${HLO_TEST_SANITIZE:-1}" == 1 ]]; then
  run_stage "ASan+UBSan build + ctest" stage_asan
fi
if [[ "${HLO_TEST_TSAN:-1}" == 1 ]]; then
  run_stage "ThreadSanitizer build + thread tests" stage_tsan
fi
if [[ "${HLO_TEST_FUZZ:-1}" == 1 ]]; then
  run_stage "libFuzzer build + ${FUZZ_SECONDS}s run" stage_fuzz
fi

log "summary ($((SECONDS - START))s total)"
printf '  %s\n' "${RESULTS[@]}"
if [[ $FAILED -ne 0 ]]; then
  echo "FAILED" >&2
  exit 1
fi
echo "ALL PASSED"
