#!/usr/bin/python3
"""Converts a llama2.c "v0" checkpoint (e.g. stories260K.bin) to a Hugging Face Llama folder:
config.json + model.safetensors, float32, rotary embeddings in the rotate-half layout.

llama2.c rotates adjacent feature pairs (2i, 2i+1) of each head; Hugging Face Llama rotates
feature i with i + head_size/2. Reordering the rows of wq and wk inside each head (even rows first,
then odd rows) turns one into the other, and the attention stays identical.

Needs only NumPy (no torch): /usr/bin/python3 scripts/convert_llama2c_to_hf.py IN.bin OUT_DIR
"""
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
from safetensors_write import write_safetensors  # noqa: E402


def read_checkpoint(path):
    with open(path, "rb") as f:
        dim, hidden, layers, heads, kv_heads, vocab, seq_len = struct.unpack("<7i", f.read(28))
        data = np.frombuffer(f.read(), dtype="<f4")
    shared = vocab > 0
    vocab = abs(vocab)
    head_size = dim // heads
    kv_dim = kv_heads * head_size
    cfg = dict(dim=dim, hidden=hidden, layers=layers, heads=heads, kv_heads=kv_heads, vocab=vocab,
               seq_len=seq_len, shared=shared)
    pos = 0

    def take(*shape):
        nonlocal pos
        n = int(np.prod(shape))
        if pos + n > data.size:
            sys.exit(f"{path}: file too short for a tensor of shape {shape}")
        out = data[pos:pos + n].reshape(shape)
        pos += n
        return out

    w = {}
    w["embed"] = take(vocab, dim)
    w["rms_att"] = take(layers, dim)
    w["wq"] = take(layers, dim, dim)
    w["wk"] = take(layers, kv_dim, dim)
    w["wv"] = take(layers, kv_dim, dim)
    w["wo"] = take(layers, dim, dim)
    w["rms_ffn"] = take(layers, dim)
    w["w1"] = take(layers, hidden, dim)
    w["w2"] = take(layers, dim, hidden)
    w["w3"] = take(layers, hidden, dim)
    w["rms_final"] = take(dim)
    take(seq_len, head_size // 2)  # freq_cis_real
    take(seq_len, head_size // 2)  # freq_cis_imag
    w["cls"] = w["embed"] if shared else take(vocab, dim)
    return cfg, w


def to_rotate_half(weight, n_heads):
    """Rows (n_heads * head_size, in) in adjacent-pair order -> rotate-half order per head."""
    rows, cols = weight.shape
    head_size = rows // n_heads
    return (weight.reshape(n_heads, head_size // 2, 2, cols).transpose(0, 2, 1, 3)
            .reshape(rows, cols))


def convert(src, out_dir):
    cfg, w = read_checkpoint(src)
    os.makedirs(out_dir, exist_ok=True)
    tensors = {"model.embed_tokens.weight": w["embed"]}
    for l in range(cfg["layers"]):
        p = f"model.layers.{l}."
        tensors[p + "input_layernorm.weight"] = w["rms_att"][l]
        tensors[p + "self_attn.q_proj.weight"] = to_rotate_half(w["wq"][l], cfg["heads"])
        tensors[p + "self_attn.k_proj.weight"] = to_rotate_half(w["wk"][l], cfg["kv_heads"])
        tensors[p + "self_attn.v_proj.weight"] = w["wv"][l]
        tensors[p + "self_attn.o_proj.weight"] = w["wo"][l]
        tensors[p + "post_attention_layernorm.weight"] = w["rms_ffn"][l]
        tensors[p + "mlp.gate_proj.weight"] = w["w1"][l]
        tensors[p + "mlp.down_proj.weight"] = w["w2"][l]
        tensors[p + "mlp.up_proj.weight"] = w["w3"][l]
    tensors["model.norm.weight"] = w["rms_final"]
    if not cfg["shared"]:
        tensors["lm_head.weight"] = w["cls"]
    write_safetensors(os.path.join(out_dir, "model.safetensors"), tensors)
    config = {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama",
        "hidden_size": cfg["dim"], "intermediate_size": cfg["hidden"],
        "num_hidden_layers": cfg["layers"], "num_attention_heads": cfg["heads"],
        "num_key_value_heads": cfg["kv_heads"], "vocab_size": cfg["vocab"],
        "max_position_embeddings": cfg["seq_len"], "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
        "hidden_act": "silu", "tie_word_embeddings": cfg["shared"], "torch_dtype": "float32",
        "bos_token_id": 1, "eos_token_id": 2,
    }
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: convert_llama2c_to_hf.py IN.bin OUT_DIR")
    convert(sys.argv[1], sys.argv[2])
    print("wrote", sys.argv[2])
