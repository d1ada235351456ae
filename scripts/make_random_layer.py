#!/usr/bin/python3
"""Writes a random bare attention layer (.safetensors, tutorial layout w_q/w_k/w_v/w_o) and a
random input (.npy, (n, d_model) float32) for memory and speed measurements of long inputs, e.g.

  /usr/bin/python3 scripts/make_random_layer.py /tmp/layer768.safetensors /tmp/x2048.npy \
      --d-model 768 --heads 12 --tokens 2048
  /usr/bin/time -v build/app/headmap-cli dump /tmp/layer768.safetensors --input /tmp/x2048.npy \
      --out /tmp/maps.npy

Large outputs: never commit them. NumPy only (the safetensors header is plain JSON).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
from safetensors_write import write_safetensors  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("layer_out")
    parser.add_argument("input_out")
    parser.add_argument("--d-model", type=int, default=768)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--tokens", type=int, default=2048)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    d = args.d_model
    scale = 1.0 / np.sqrt(d)  # nn.Linear-like magnitude, so the softmax is neither flat nor one-hot
    tensors = {}
    for name in ("w_q", "w_k", "w_v", "w_o"):
        tensors[f"{name}.weight"] = rng.uniform(-scale, scale, (d, d)).astype(np.float32)
        tensors[f"{name}.bias"] = rng.uniform(-scale, scale, (d,)).astype(np.float32)
    write_safetensors(args.layer_out, tensors, metadata={"num_heads": str(args.heads)})
    np.save(args.input_out, rng.standard_normal((args.tokens, d)).astype(np.float32))


if __name__ == "__main__":
    main()
