#!/usr/bin/python3
"""Random-weight checkpoints of real models' shapes for the scale measurements (not committed).

  gpt2-small/: GPT-2 small (124M parameters, F32, ~500 MB), Hugging Face names, GPT-2 tokenizer
               files copied from ../shared/models/gpt2-tokenizer when present.
  llama-1b/:   a Llama-3.2-1B-shaped model (1.24B parameters, BF16, ~2.5 GB): 16 layers,
               hidden 2048, 32 heads over 8 KV heads, MLP 8192, vocab 128256, tied embeddings.

Needs only NumPy. Usage: /usr/bin/python3 scripts/make_scale_checkpoints.py OUT_DIR [gpt2|llama]
"""
import json
import os
import shutil
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def write_streaming(path, specs, dtype, seed):
    """specs: list of (name, shape, kind) with kind 'ones', 'zeros' or 'normal'. Generates each
    tensor only when writing it, so memory stays at one tensor."""
    size = 4 if dtype == "F32" else 2
    header, offset = {}, 0
    for name, shape, _ in specs:
        n = int(np.prod(shape)) * size
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + n]}
        offset += n
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    rng = np.random.default_rng(seed)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name, shape, kind in specs:
            if kind == "ones":
                a = np.ones(shape, dtype=np.float32)
            elif kind == "zeros":
                a = np.zeros(shape, dtype=np.float32)
            else:
                a = rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)
            if dtype == "F32":
                f.write(a.astype("<f4").tobytes())
            else:  # BF16: round to nearest even on the upper 16 bits
                bits = a.view("<u4").astype(np.uint64)
                bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
                f.write(bits.astype("<u2").tobytes())
            del a


def gpt2_small(out):
    d, layers, vocab, npos = 768, 12, 50257, 1024
    specs = [("wte.weight", (vocab, d), "normal"), ("wpe.weight", (npos, d), "normal")]
    for l in range(layers):
        p = f"h.{l}."
        specs += [(p + "ln_1.weight", (d,), "ones"), (p + "ln_1.bias", (d,), "zeros"),
                  (p + "attn.c_attn.weight", (d, 3 * d), "normal"),
                  (p + "attn.c_attn.bias", (3 * d,), "zeros"),
                  (p + "attn.c_proj.weight", (d, d), "normal"),
                  (p + "attn.c_proj.bias", (d,), "zeros"),
                  (p + "ln_2.weight", (d,), "ones"), (p + "ln_2.bias", (d,), "zeros"),
                  (p + "mlp.c_fc.weight", (d, 4 * d), "normal"),
                  (p + "mlp.c_fc.bias", (4 * d,), "zeros"),
                  (p + "mlp.c_proj.weight", (4 * d, d), "normal"),
                  (p + "mlp.c_proj.bias", (d,), "zeros")]
    specs += [("ln_f.weight", (d,), "ones"), ("ln_f.bias", (d,), "zeros")]
    os.makedirs(out, exist_ok=True)
    write_streaming(os.path.join(out, "model.safetensors"), specs, "F32", 1)
    cfg = {"model_type": "gpt2", "vocab_size": vocab, "n_positions": npos, "n_embd": d,
           "n_layer": layers, "n_head": 12, "layer_norm_epsilon": 1e-5,
           "activation_function": "gelu_new"}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    tok = os.path.join(HERE, "..", "..", "shared", "models", "gpt2-tokenizer")
    for name in ("vocab.json", "merges.txt", "tokenizer.json"):
        if os.path.exists(os.path.join(tok, name)):
            shutil.copy(os.path.join(tok, name), out)


def llama_1b(out):
    d, layers, heads, kv, ff, vocab = 2048, 16, 32, 8, 8192, 128256
    dh = d // heads
    specs = [("model.embed_tokens.weight", (vocab, d), "normal")]
    for l in range(layers):
        p = f"model.layers.{l}."
        specs += [(p + "input_layernorm.weight", (d,), "ones"),
                  (p + "self_attn.q_proj.weight", (heads * dh, d), "normal"),
                  (p + "self_attn.k_proj.weight", (kv * dh, d), "normal"),
                  (p + "self_attn.v_proj.weight", (kv * dh, d), "normal"),
                  (p + "self_attn.o_proj.weight", (d, heads * dh), "normal"),
                  (p + "post_attention_layernorm.weight", (d,), "ones"),
                  (p + "mlp.gate_proj.weight", (ff, d), "normal"),
                  (p + "mlp.up_proj.weight", (ff, d), "normal"),
                  (p + "mlp.down_proj.weight", (d, ff), "normal")]
    specs += [("model.norm.weight", (d,), "ones")]
    os.makedirs(out, exist_ok=True)
    write_streaming(os.path.join(out, "model.safetensors"), specs, "BF16", 2)
    cfg = {"model_type": "llama", "vocab_size": vocab, "hidden_size": d,
           "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": kv,
           "intermediate_size": ff, "max_position_embeddings": 131072, "rms_norm_eps": 1e-5,
           "rope_theta": 500000.0, "tie_word_embeddings": True, "hidden_act": "silu",
           "torch_dtype": "bfloat16"}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: make_scale_checkpoints.py OUT_DIR [gpt2|llama]")
    which = sys.argv[2] if len(sys.argv) > 2 else "both"
    if which in ("gpt2", "both"):
        gpt2_small(os.path.join(sys.argv[1], "gpt2-small"))
    if which in ("llama", "both"):
        llama_1b(os.path.join(sys.argv[1], "llama-1b"))
    print("wrote", sys.argv[1])
