#!/usr/bin/python3
"""PyTorch side of scripts/bench/run_benchmarks.sh: the same configurations as `headmap-cli bench`,
one JSON object per line, same keys (mode, tokens, threads, best_ms, median_ms, flops, gflops).

  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 scripts/bench/torch_reference.py \
      mha N REPEAT THREADS | gpt2 N REPEAT THREADS | gemm S REPEAT THREADS

mha:  nn.MultiheadAttention(768, 12), batch 1, need_weights=True, average_attn_weights=False.
gpt2: a GPT-2-small-shaped stack (12 layers x 12 heads, d 768, MLP 3072, gelu tanh, random
      weights) written with plain modules, returning all 144 heads' attention probabilities; no
      LM head (headmap's bench --model does not compute logits either).
gemm: torch.mm of two (S, S) float matrices (OpenBLAS): the reference library's GEMM peak.
Each: one warm-up call, then REPEAT timed calls under torch.no_grad().
"""
import json
import math
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def timed(fn, repeat):
    fn()
    ms = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ms.append((time.perf_counter() - t) * 1e3)
    return sorted(ms)


class Block(nn.Module):
    """GPT-2 block: pre-norm causal self-attention and MLP; returns (h, probs (1, heads, n, n))."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d, eps=1e-5)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-5)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, h, mask):
        b, n, d = h.shape
        dk = d // self.heads
        q, k, v = self.qkv(self.ln1(h)).split(d, dim=2)
        q, k, v = (t.view(b, n, self.heads, dk).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(dk)
        probs = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        ctx = (probs @ v).transpose(1, 2).reshape(b, n, d)
        h = h + self.proj(ctx)
        h = h + self.out(F.gelu(self.fc(self.ln2(h)), approximate="tanh"))
        return h, probs


class Gpt2Small(nn.Module):
    def __init__(self, layers=12, d=768, heads=12, vocab=50257, positions=1024):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(positions, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))

    def forward(self, ids):
        n = ids.shape[1]
        mask = torch.ones(n, n, dtype=torch.bool).triu(1)
        h = self.wte(ids) + self.wpe(torch.arange(n))
        probs = []
        for block in self.blocks:
            h, p = block(h, mask)
            probs.append(p)
        return h, probs


def bench_mha(n, repeat):
    mha = nn.MultiheadAttention(768, 12, batch_first=True).eval()
    x = torch.randn(1, n, 768)

    def run():
        out, w = mha(x, x, x, need_weights=True, average_attn_weights=False)
        assert w.shape == (1, 12, n, n)

    d = 768
    return {"mode": "layer", "d_model": d, "heads": 12, "tokens": n,
            "flops": 8.0 * n * d * d + 4.0 * n * n * d}, timed(run, repeat)


def bench_gpt2(n, repeat):
    model = Gpt2Small().eval()
    ids = torch.tensor([[(i * 7919 + 13) % 50257 for i in range(n)]])
    heads = []

    def run():
        _, probs = model(ids)
        heads.clear()
        heads.append(sum(p.shape[1] for p in probs))

    d = 768
    info = {"mode": "model", "family": "gpt2", "layers": 12, "heads": 12, "d_model": d,
            "tokens": n, "flops": 12 * (8.0 * n * d * d + 4.0 * n * n * d)}
    ms = timed(run, repeat)
    info["heads_recorded"] = heads[0]
    return info, ms


def bench_gemm(s, repeat):
    a, b = torch.randn(s, s), torch.randn(s, s)
    c = torch.empty(s, s)
    return {"mode": "gemm", "size": s, "flops": 2.0 * s ** 3}, timed(
        lambda: torch.mm(a, b, out=c), repeat)


def loaded_blas():
    """The BLAS library this process mapped: reference BLAS is ~100x slower than OpenBLAS."""
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "blas" in line.split()[-1]}
    return sorted(paths)


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("mha", "gpt2", "gemm"):
        sys.exit(__doc__)
    mode, size, repeat, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    with torch.no_grad():
        info, ms = {"mha": bench_mha, "gpt2": bench_gpt2, "gemm": bench_gemm}[mode](size, repeat)
    info.update({"threads": torch.get_num_threads(), "repeat": repeat, "warmup": 1,
                 "best_ms": ms[0], "median_ms": statistics.median(ms), "times_ms": ms,
                 "gflops": info["flops"] / (ms[0] * 1e-3) * 1e-9, "torch": torch.__version__,
                 "blas": loaded_blas()})
    print(json.dumps(info))


if __name__ == "__main__":
    main()
