#!/usr/bin/python3
"""Markdown tables from the JSON lines of scripts/bench/run_benchmarks.sh (headmap and torch rows).

  /usr/bin/python3 scripts/bench/summarize_benchmarks.py RESULTS.jsonl [UI.json]

UI.json: Google Benchmark JSON of build/bench/headmap_ui_bench (the desktop app's targets).

Ratio = headmap best ms / torch best ms (below 1: headmap faster); torch's best over its thread
settings (1 and THREADS), shown in brackets. % of peak = the layer's
effective GFLOP/s (FLOPs: projections 4*2*n*d^2 + scores 2*n^2*d + context 2*n^2*d, over the best
time) divided by the best GEMM GFLOP/s measured at the same thread count in the same run: the
highest of headmap's gemm.h, Eigen's GEMM and torch's BLAS.
"""
import json
import sys


def main():
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]

    def pick(side, mode, **kw):
        # The fastest matching row: torch runs each size with 1 and with THREADS threads.
        found = [r for r in rows
                 if r["side"] == side and r["mode"] == mode and all(r.get(k) == v for k, v in kw.items())]
        return min(found, key=lambda r: r["best_ms"]) if found else None

    print("GEMM 1024^3 float, best GFLOP/s")
    print("| threads | headmap (gemm.h) | Eigen 3.4 | torch (BLAS) | best |")
    print("|---|---|---|---|---|")
    peaks = {}
    for r in rows:
        if r["side"] == "headmap" and r["mode"] == "gemm":
            t = pick("torch", "gemm", threads=r["threads"])
            eigen = r.get("eigen_gflops", 0.0)
            peak = max(r["gflops"], eigen, t["gflops"] if t else 0.0)
            peaks[r["threads"]] = peak
            torch = f"{t['gflops']:.1f}" if t else "-"
            print(f"| {r['threads']} | {r['gflops']:.1f} | {eigen:.1f} | {torch} | {peak:.1f} |")

    print()
    print("Single layer, d_model 768, 12 heads, per-head weights, batch 1")
    print("| n | headmap best ms | headmap median ms | torch best ms (threads) | torch median ms | "
          "headmap/torch (best) | headmap GFLOP/s | % of best GEMM peak |")
    print("|---|---|---|---|---|---|---|---|")
    for h in rows:
        if h["side"] != "headmap" or h["mode"] != "layer":
            continue
        t = pick("torch", "layer", tokens=h["tokens"])
        peak = peaks.get(h["threads"])
        share = f"{100 * h['gflops'] / peak:.0f} %" if peak else "-"
        tb = f"{t['best_ms']:.3f} ({t['threads']}) | {t['median_ms']:.3f} | " \
             f"{h['best_ms'] / t['best_ms']:.2f}" if t else "- | - | -"
        print(f"| {h['tokens']} | {h['best_ms']:.3f} | {h['median_ms']:.3f} | {tb} | "
              f"{h['gflops']:.1f} | {share} |")

    print()
    print("GPT-2-small shape (12 x 12 heads, d 768), forward with all heads' weights, no LM head")
    print("| tokens | heads | headmap best ms | headmap median ms | torch best ms (threads) | torch median ms |"
          " headmap/torch (best) |")
    print("|---|---|---|---|---|---|---|")
    for h in rows:
        if h["side"] != "headmap" or h["mode"] != "model":
            continue
        t = pick("torch", "model", tokens=h["tokens"])
        tb = f"{t['best_ms']:.2f} ({t['threads']}) | {t['median_ms']:.2f} | " \
             f"{h['best_ms'] / t['best_ms']:.2f}" if t else "- | - | -"
        print(f"| {h['tokens']} | {h['heads_recorded']} | {h['best_ms']:.2f} | "
              f"{h['median_ms']:.2f} | {tb} |")

    blas = {tuple(r.get("blas", [])) for r in rows if r["side"] == "torch"}
    threads = {r["threads"] for r in rows if r["side"] == "torch" and r["mode"] != "gemm"}
    if blas:
        print(f"\ntorch BLAS: {', '.join(sorted(p for b in blas for p in b)) or 'none mapped'};"
              f" torch threads: {sorted(threads)}")

    if len(sys.argv) > 2:
        ui_table(sys.argv[2])


# Issue #5's desktop targets, by benchmark name prefix.
UI_TARGETS = [
    ("KeystrokeToRepaint/default", "keystroke -> repainted heatmap, default model", 30),
    ("GridRender/gpt2-small", "12-head grid redraw, GPT-2-small size, 64 tokens", 100),
    ("KeystrokeToGrid/gpt2-small", "keystroke -> recomputed + redrawn grid, same", None),
    ("BM_StartupToFirstPaint", "process start -> first painted heatmap (-> exit)", 1000),
]


def ui_table(path):
    try:
        runs = json.load(open(path))["benchmarks"]
    except (OSError, ValueError, KeyError) as e:
        print(f"\nno desktop results: {e}")
        return
    print()
    print("Desktop app (offscreen platform), per iteration")
    print("| what | iterations | mean ms | median ms | max ms | target | met (max) |")
    print("|---|---|---|---|---|---|---|")
    for prefix, what, target in UI_TARGETS:
        r = next((b for b in runs if b["name"].startswith(prefix)), None)
        if r is None or r.get("error_occurred"):
            why = r.get("error_message", "") if r else "not run"
            print(f"| {what} | - | - | - | - | {target or '-'} | {why} |")
            continue
        mean = r["real_time"]  # manual time, in ms (the benchmarks use kMillisecond)
        worst = r.get("max_ms", mean)
        met = "-" if target is None else ("yes" if worst <= target else "no")
        print(f"| {what} | {r['iterations']} | {mean:.1f} | {r.get('median_ms', mean):.1f} | "
              f"{worst:.1f} | {'<= ' + str(target) if target else '-'} | {met} |")


if __name__ == "__main__":
    main()
