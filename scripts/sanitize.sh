#!/usr/bin/env bash
# The whole ctest suite under AddressSanitizer + UndefinedBehaviorSanitizer (gcc), in
# ./build-asan (or $HEADMAP_ASAN_BUILD_DIR). Any sanitizer report stops the offending test with a
# non-zero exit, so the suite fails. -O1 keeps the Eigen-heavy tests fast enough; assertions stay
# on. Usage: scripts/sanitize.sh [extra ctest args, e.g. -R Malformed]
#   HEADMAP_ASAN_UI=OFF skips the Qt app and its tests.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${HEADMAP_ASAN_BUILD_DIR:-build-asan}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=-O1 -g1" \
  -DHEADMAP_SANITIZE=address,undefined -DHEADMAP_BUILD_BENCH=OFF \
  -DHEADMAP_BUILD_UI="${HEADMAP_ASAN_UI:-ON}" >/dev/null
cmake --build "$build" -j"${HEADMAP_JOBS:-$(nproc)}"
# halt_on_error: the first report ends the process; detect_leaks: leaks fail too.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "$build" --output-on-failure -j"${HEADMAP_JOBS:-$(nproc)}" "$@"
