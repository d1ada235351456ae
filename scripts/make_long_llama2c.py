#!/usr/bin/python3
"""A random-weight llama2.c checkpoint of stories260K's width with a long position table, for the
long-input memory measurements (docs/long_inputs.md). Never commit the output.

  dim 64, hidden 172, 5 layers, 8 heads over 4 KV heads, vocab 512 (shared classifier),
  seq_len 4096 by default. Writes OUT_DIR/model.bin and copies tok512.bin (the llama2.c
  tokenizer of stories260K) beside it when ../shared/models/stories260K is found, so that
  `headmap OUT_DIR/model.bin --text "..."` works.

Usage: /usr/bin/python3 scripts/make_long_llama2c.py OUT_DIR [--seq-len 4096] [--seed 0]
NumPy only.
"""
import argparse
import os
import shutil
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DIM, HIDDEN, LAYERS, HEADS, KV_HEADS, VOCAB = 64, 172, 5, 8, 4, 512


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--seq-len", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    head_size = DIM // HEADS
    kv_dim = KV_HEADS * head_size

    def normal(*shape):
        return rng.standard_normal(shape, dtype=np.float32) * np.float32(0.1)

    # llama2.c "v0" order; weight matrices (out, in), row-major.
    tensors = [
        normal(VOCAB, DIM),                      # token embedding (also the classifier)
        np.ones((LAYERS, DIM), np.float32),      # rms_att
        normal(LAYERS, DIM, DIM),                # wq
        normal(LAYERS, kv_dim, DIM),             # wk
        normal(LAYERS, kv_dim, DIM),             # wv
        normal(LAYERS, DIM, DIM),                # wo
        np.ones((LAYERS, DIM), np.float32),      # rms_ffn
        normal(LAYERS, HIDDEN, DIM),             # w1
        normal(LAYERS, DIM, HIDDEN),             # w2
        normal(LAYERS, HIDDEN, DIM),             # w3
        np.ones((DIM,), np.float32),             # rms_final
    ]
    # freq_cis_real / imag (seq_len, head_size / 2): RoPE tables, recomputed by the loader.
    pos = np.arange(args.seq_len, dtype=np.float64)[:, None]
    freqs = 1.0 / (10000.0 ** (np.arange(0, head_size, 2, dtype=np.float64) / head_size))
    angles = pos * freqs[None, :]
    tensors += [np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)]

    path = os.path.join(args.out_dir, "model.bin")
    with open(path, "wb") as f:
        f.write(struct.pack("<7i", DIM, HIDDEN, LAYERS, HEADS, KV_HEADS, VOCAB, args.seq_len))
        for t in tensors:
            f.write(np.ascontiguousarray(t, dtype="<f4").tobytes())
    tok = os.path.join(HERE, "..", "..", "shared", "models", "stories260K", "tok512.bin")
    if os.path.exists(tok):
        shutil.copy(tok, os.path.join(args.out_dir, "tok512.bin"))
    print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
