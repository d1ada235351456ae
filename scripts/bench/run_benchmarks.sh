#!/usr/bin/env bash
# headmap vs PyTorch, same machine, one run: the GEMM peak, the single attention layer at
# n = 16, 128, 512, 1024 and a GPT-2-small-shaped model's 144 heads at 128 tokens.
#
#   scripts/bench/run_benchmarks.sh [BUILD_DIR]        (default: build)
#
# Environment:
#   REPEAT=10         timed runs per configuration (best and median reported; one warm-up first)
#   THREADS=2         compute threads on both sides (headmap --threads, torch.set_num_threads and
#                     OPENBLAS_NUM_THREADS)
#   SCALE_DIR=/tmp/headmap-scale   where the random GPT-2-small checkpoint is made (not committed)
#   OPENBLAS_DIR=     a folder holding OpenBLAS's libblas.so.3 for torch (see below)
#   RESULTS=/tmp/headmap-bench-<time>.jsonl   every raw JSON line
#
# The PyTorch side runs with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset: this environment sets
# them (older OpenBLAS builds crash on this CPU otherwise) and they select a slower kernel. Only
# the torch commands see them unset. Debian's python3-torch calls BLAS through libblas.so.3; when
# that is the reference (netlib) BLAS, torch is ~100x slower than with OpenBLAS and the comparison
# would be meaningless, so when torch is installed this script installs Debian's
# libopenblas0-pthread (as the issue's reference figures did), which takes over libblas.so.3 through
# update-alternatives. headmap itself uses no BLAS (Eigen only) and is not affected.
# OPENBLAS_DIR still overrides this with an unpacked OpenBLAS when installing is not possible.
# The library torch actually loaded is printed with its results ("blas").
# Both sides get the same glibc malloc thresholds (mmap 32 MB, trim 256 MB): headmap-cli bench sets
# them with keepFreedMemory() (core/attention/parallel.h), torch through MALLOC_*_ variables.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
cli=$build/app/headmap-cli
repeat=${REPEAT:-10}
threads=${THREADS:-2}
scale=${SCALE_DIR:-/tmp/headmap-scale}
results=${RESULTS:-/tmp/headmap-bench-$(date -u +%Y%m%dT%H%M%S).jsonl}
torch_py=/usr/bin/python3

[[ -x $cli ]] || { echo "no $cli: build it first (cmake --build $build --target headmap-cli)" >&2; exit 1; }
: >"$results"

echo "== machine"
lscpu | grep -E '^(Model name|CPU\(s\)|Thread\(s\) per core|L2 cache|L3 cache)' || true
echo "AVX-512: $(grep -q avx512f /proc/cpuinfo && echo yes || echo no)"
grep MemTotal /proc/meminfo
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)   git: $(git -C "$root" rev-parse --short HEAD)"
echo "repeat $repeat, threads $threads, raw results: $results"

have_torch=0
if $torch_py -c 'import torch' 2>/dev/null; then have_torch=1; else echo "torch not installed: headmap side only"; fi
if ((have_torch)) && [[ -z ${OPENBLAS_DIR:-} ]] && ! dpkg -s libopenblas0-pthread >/dev/null 2>&1; then
  echo "installing libopenblas0-pthread for PyTorch's BLAS"
  sudo_cmd=(); [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get install -y libopenblas0-pthread >/dev/null
fi

# torch runs each layer/model size twice: torch.set_num_threads(THREADS) and (1), OpenBLAS keeping
# THREADS either way; the summary compares headmap with torch's faster setting (at small n torch's
# own threads and OpenBLAS's fight over the 2 cores).
torch_run() {  # mode size torch-threads
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS="$threads" \
    MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=268435456 \
    ${OPENBLAS_DIR:+LD_LIBRARY_PATH=$OPENBLAS_DIR} \
    $torch_py "$here/torch_reference.py" "$1" "$2" "$repeat" "$3" |
    sed 's/^{/{"side": "torch", /' | tee -a "$results" >/dev/null
}
headmap_run() {  # bench options...
  "$cli" bench --repeat "$repeat" "$@" | sed 's/^{/{"side": "headmap", /' | tee -a "$results" >/dev/null
}

echo "== GEMM peak (1024 x 1024 x 1024, float)"
for t in 1 "$threads"; do
  headmap_run --gemm 1024 --threads "$t"
  if ((have_torch)); then torch_run gemm 1024 "$t"; fi
done

echo "== single layer, d_model 768, 12 heads, per-head weights"
for n in 16 128 512 1024; do
  headmap_run --tokens "$n" --threads "$threads"
  if ((have_torch)); then torch_run mha "$n" "$threads"; torch_run mha "$n" 1; fi
done

echo "== GPT-2-small shape, 12 layers x 12 heads, 128 tokens, all heads recorded"
if [[ ! -f $scale/gpt2-small/model.safetensors ]]; then
  $torch_py "$root/scripts/make_scale_checkpoints.py" "$scale" gpt2 >/dev/null
fi
headmap_run --model "$scale/gpt2-small" --tokens 128 --threads "$threads"
if ((have_torch)); then torch_run gpt2 128 "$threads"; torch_run gpt2 128 1; fi

echo "== desktop app (offscreen): keystroke to repaint, grid redraw, startup"
ui_results="${results%.jsonl}.ui.json"
if [[ -x $build/bench/headmap_ui_bench ]]; then
  HEADMAP_GPT2_SMALL="$scale/gpt2-small" QT_QPA_PLATFORM=offscreen "$build/bench/headmap_ui_bench" \
    --benchmark_out="$ui_results" --benchmark_out_format=json >/dev/null 2>&1 ||
    echo "headmap_ui_bench failed (see $ui_results)"
else
  echo "no $build/bench/headmap_ui_bench (configure with the UI and Google Benchmark)"; ui_results=
fi

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
$torch_py "$here/summarize_benchmarks.py" "$results" $ui_results
