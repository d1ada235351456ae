#!/usr/bin/python3
"""headmap's single attention layer vs torch.nn.MultiheadAttention, same machine, one run.

  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 \
      scripts/bench/compare_attention_torch.py build/bench/headmap_bench

OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are unset for torch: on this machine they select a slower
OpenBLAS kernel. Both sides: d_model 768, 12 heads, batch 1, per-head weights returned, best
time over the repeats. headmap's side is bench/attention_bench.cpp's BM_AttentionMultiHead.
"""
import json
import subprocess
import sys
import time

import torch

SIZES = [16, 128, 512, 1024]


def torch_ms(n, repeat):
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(768, 12, batch_first=True).eval()
    x = torch.randn(1, n, 768)
    best = float("inf")
    with torch.no_grad():
        for _ in range(2):
            mha(x, x, x, need_weights=True, average_attn_weights=False)
        for _ in range(repeat):
            t = time.perf_counter()
            mha(x, x, x, need_weights=True, average_attn_weights=False)
            best = min(best, time.perf_counter() - t)
    return best * 1e3


def headmap_ms(bench, repeat):
    out = subprocess.run(
        [bench, "--benchmark_filter=BM_AttentionMultiHead/", "--benchmark_format=json",
         f"--benchmark_repetitions={repeat}", "--benchmark_min_time=0.05"],
        check=True, capture_output=True, text=True).stdout
    best = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        n = int(b["name"].split("/")[1])
        ms = b["real_time"] if b["time_unit"] == "ms" else b["real_time"] * 1e-3
        best[n] = min(best.get(n, float("inf")), ms)
    return best


def main():
    bench = sys.argv[1] if len(sys.argv) > 1 else "build/bench/headmap_bench"
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    t = {n: torch_ms(n, repeat) for n in SIZES}
    h = headmap_ms(bench, repeat)
    print(f"{'n':>6} {'torch ms':>10} {'headmap ms':>11} {'headmap/torch':>14}")
    for n in SIZES:
        print(f"{n:>6} {t[n]:>10.3f} {h[n]:>11.3f} {h[n] / t[n]:>14.2f}")


if __name__ == "__main__":
    main()
