#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan), seeds their corpora and runs each for RUNS
# executions or MAX_TIME seconds, whichever comes first; prints the executions per target and
# exits non-zero when any target found a crash, leak, UB or timeout (artifacts under
# build-fuzz/artifacts/<target>/).
#   RUNS=1000000 MAX_TIME=600 JOBS=1 scripts/fuzz/run_all.sh [target...]
# JOBS=2 runs two targets at a time (the machine has 2 cores; do not go beyond).
set -uo pipefail
cd "$(dirname "$0")/../.."
RUNS="${RUNS:-1000000}"
MAX_TIME="${MAX_TIME:-600}"
JOBS="${JOBS:-1}"
BUILD="${HEADMAP_FUZZ_BUILD_DIR:-build-fuzz}"

if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a \
    >/dev/null 2>&1; then
  echo "installing clang and libclang-rt-14-dev (libFuzzer runtime)"
  apt-get install -y clang libclang-rt-14-dev >/dev/null
fi
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  CXX=clang++ CC=clang cmake -S . -B "$BUILD" -DHEADMAP_FUZZ=ON -DHEADMAP_BUILD_UI=OFF \
    -DHEADMAP_BUILD_TESTS=OFF -DHEADMAP_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=None \
    "-DCMAKE_CXX_FLAGS=-O1 -gline-tables-only"
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for src in fuzz/fuzz_*.cpp; do targets+=("$(basename "$src" .cpp)"); done
fi
cmake --build "$BUILD" -j2 --target "${targets[@]}" || exit 1
bash scripts/fuzz/seed_corpora.sh "$BUILD/corpus" >/dev/null

run_one() {
  local t="$1"
  mkdir -p "$BUILD/corpus/$t" "$BUILD/artifacts/$t" "$BUILD/logs"
  # -rss_limit_mb: a parser must not allocate gigabytes for a small input; -timeout: no hangs.
  "$BUILD/fuzz/$t" -runs="$RUNS" -max_total_time="$MAX_TIME" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$t/" \
    "$BUILD/corpus/$t" >"$BUILD/logs/$t.log" 2>&1
  local rc=$?
  local execs
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$BUILD/logs/$t.log" | grep -o '[0-9]*$')
  echo "$t: exit $rc, ${execs:-?} executions (log $BUILD/logs/$t.log)"
  return $rc
}

failed=0
pids=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$JOBS" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || failed=1; done
exit $failed
