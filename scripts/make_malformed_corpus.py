#!/usr/bin/python3
"""Writes tests/fixtures/malformed/: one tiny file (or folder) per failure mode of each format
headmap reads, and manifest.json saying how to run each through headmap-cli and the loaders and
which message substring the refusal must contain. Run: /usr/bin/python3 scripts/make_malformed_corpus.py
"Huge" sizes are declared in headers, never written: every file stays under a few KB."""
import json
import os
import shutil
import struct
import zipfile
import io

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures",
                    "malformed")
entries = []

# How each loader is driven. {file} is the malformed path, {fixtures} tests/fixtures, {out} a
# fresh output path. "loader" picks the in-process call of tests/cli/malformed_corpus_test.cpp.
INSPECT = ["inspect", "{file}"]
NPY_INPUT = ["dump", "{fixtures}/cli/two_layers.safetensors", "--input", "{file}", "--out",
             "{out}"]
# Tokenizers reach the CLI through a tiny llama2.c checkpoint's --tokenizer option.
TOKENIZER = ["inspect", "{fixtures}/malformed/hosts/tiny_llama2c.bin", "--tokenizer", "{file}"]


def put(rel, data, loader, cli, expect, needs=None, expect_cli=None):
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
    entry = {"file": rel, "loader": loader, "cli": cli, "expect": expect}
    if needs:
        entry["needs"] = needs
    if expect_cli:
        entry["expect_cli"] = expect_cli  # the CLI passes the model's vocab size as a hint
    return entry


def add(*args, **kwargs):
    entries.append(put(*args, **kwargs))


def add_folder(rel, files, loader, cli, expect, needs=None):
    for name, data in files.items():
        put(os.path.join(rel, name), data, loader, cli, expect)
    entry = {"file": rel, "loader": loader, "cli": cli, "expect": expect}
    if needs:
        entry["needs"] = needs
    entries.append(entry)


# ---------------------------------------------------------------- safetensors
def safetensors(header, data=b"", length=None):
    h = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(h) if length is None else length) + h + data


def st(mode, data, expect):
    add("safetensors/%s.safetensors" % mode, data, "model", INSPECT, expect)


good = {"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}
st("empty", b"", "shorter than the 8-byte")
st("truncated", safetensors(good, bytes(16))[:20], "header length")
st("header_beyond_file", safetensors(good, bytes(16), length=4096), "bytes after the length")
st("header_over_100mb", safetensors(good, bytes(16), length=200 << 20), "above the limit")
st("bad_json", safetensors(b'{"w": {"dtype": "F32", "shape": [2, 2], "data_off'),
   "not valid JSON")
st("not_an_object", safetensors(b'{"w": [1, 2, 3]}'), "must be an object")
st("unknown_dtype", safetensors({"w": {"dtype": "F99", "shape": [2], "data_offsets": [0, 8]}},
                                bytes(8)), "unknown dtype 'F99'")
st("shape_bytes_mismatch", safetensors(
    {"w": {"dtype": "F32", "shape": [4, 4], "data_offsets": [0, 32]}}, bytes(32)), "needs 64 bytes")
st("overlapping", safetensors(
    {"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
     "b": {"dtype": "F32", "shape": [4], "data_offsets": [8, 24]}}, bytes(24)), "overlap")
st("offsets_out_of_range", safetensors(
    {"w": {"dtype": "F32", "shape": [250000], "data_offsets": [0, 1000000]}}, bytes(64)),
   "beyond the data area")
st("shape_overflow", safetensors(
    {"w": {"dtype": "F32", "shape": [1 << 62, 1 << 62, 16], "data_offsets": [0, 16]}}, bytes(16)),
   "overflow")
st("negative_shape", safetensors(
    {"w": {"dtype": "F32", "shape": [-4], "data_offsets": [0, 16]}}, bytes(16)), "negative")
st("renamed_png", b"\x89PNG\r\n\x1a\n" + bytes(8) + b"IHDR" + bytes(13), "header length")
zbuf = io.BytesIO()
with zipfile.ZipFile(zbuf, "w") as z:
    z.writestr(zipfile.ZipInfo("hello.txt", (1980, 1, 1, 0, 0, 0)), "not tensors")
st("renamed_zip", zbuf.getvalue(), "zip")

# ---------------------------------------------------------------- npy
def npy(header, data=b"", version=1):
    h = header.encode("latin1")
    h += b" " * ((64 - (10 + len(h) + 1) % 64) % 64) + b"\n"
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", len(h)) + h + data


def np_(mode, data, expect):
    add("npy/%s.npy" % mode, data, "npy", NPY_INPUT, expect)


f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 16), }"
np_("empty", b"", "missing the \\x93NUMPY magic")
np_("bad_magic", b"PK\x03\x04" + bytes(60), "missing the \\x93NUMPY magic")
np_("unsupported_version", npy(f4, bytes(128), version=9), "unsupported .npy version 9")
np_("header_beyond_file", b"\x93NUMPY\x01\x00" + struct.pack("<H", 60000) + b"{'descr'",
    "runs past the end")
np_("unknown_dtype", npy(f4.replace("<f4", "<i4"), bytes(128)), "unsupported npy dtype '<i4'")
np_("big_endian", npy(f4.replace("<f4", ">f4"), bytes(128)), "unsupported npy dtype '>f4'")
np_("fortran_order", npy(f4.replace("False", "True"), bytes(128)), "Fortran-order")
np_("shape_data_mismatch", npy(f4, bytes(100)), "needs 128 bytes of data, the file has 100")
np_("shape_overflow", npy(f4.replace("(2, 16)", "(4294967296, 4294967296, 16)"), bytes(128)),
    "overflows 64 bits")
np_("bad_shape", npy(f4.replace("(2, 16)", "(2, x)"), bytes(128)), "bad dimension")
np_("no_descr", npy("{'fortran_order': False, 'shape': (2, 16), }", bytes(128)),
    "no 'descr' entry")
# A valid .npy of the wrong rank: only the CLI (which needs (n, d_model)) refuses it.
add("npy/wrong_rank.npy", npy(f4.replace("(2, 16)", "(32,)"), bytes(128)), "none", NPY_INPUT,
    "shape (n, d_model)")

# ---------------------------------------------------------------- tokenizer.json
def tj(mode, text, expect):
    add("tokenizer_json/%s.tokenizer.json" % mode, text, "tokenizer", TOKENIZER, expect,
        needs="llama2c")


tj("empty", "", "empty")
tj("bad_json", '{"model": {"type": "BPE", "vocab": {"a": 0', "JSON")
tj("deep_nesting", "[" * 1000, "nests")
tj("model_not_object", '{"model": 3}', "model")
tj("negative_id", '{"model": {"type": "BPE", "vocab": {"a": -3}, "merges": []}}', "-3")
tj("id_too_large", '{"model": {"type": "BPE", "vocab": {"a": 99999999999}, "merges": []}}',
   "99999999999")
tj("merge_unknown_piece", '{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, '
   '"merges": ["a c"]}}', "merge")
tj("unknown_model_type", '{"model": {"type": "Unigram", "vocab": [["a", 0.0]]}}', "Unigram")

# ---------------------------------------------------------------- vocab.json + merges.txt
def vj(mode, vocab, merges, expect):
    files = {"vocab.json": vocab}
    if merges is not None:
        files["merges.txt"] = merges
    add_folder("vocab_json/%s" % mode, files, "tokenizer_folder",
               ["inspect", "{fixtures}/malformed/hosts/tiny_llama2c.bin", "--tokenizer",
                "{file}/vocab.json"], expect, needs="llama2c")


vj("missing_merges", '{"a": 0, "b": 1, "ab": 2}', None, "needs merges.txt")
vj("merge_unknown_piece", '{"a": 0, "b": 1, "ab": 2}', "#version: 0.2\na z\n", "merges.txt")
vj("bad_merges_line", '{"a": 0, "b": 1, "ab": 2}', "#version: 0.2\nab\n", "merges.txt: line")
vj("vocab_not_object", '{"a": [0]}', "a b\n", "vocab.json")
vj("bad_json", '{"a": 0, "b": ', "a b\n", "JSON")

# ---------------------------------------------------------------- vocab.txt
def vt(mode, text, expect):
    add("vocab_txt/%s.vocab.txt" % mode, text, "tokenizer", TOKENIZER, expect, needs="llama2c")


vt("empty", "", "empty")
vt("blank_lines", "\n\n\n\n", "no tokens")
vt("line_too_long", "[PAD]\n" + "a" * 5000 + "\n", "more than a vocabulary piece may be")


# ---------------------------------------------------------------- llama2.c tokenizer.bin
def l2tok(pieces, max_len=8, scores=None):
    out = struct.pack("<i", max_len)
    for i, p in enumerate(pieces):
        b = p if isinstance(p, bytes) else p.encode()
        s = scores[i] if scores else -float(i)
        out += struct.pack("<fi", s, len(b)) + b
    return out


base = ["<unk>", "\n<s>\n", "\n</s>\n"] + ["<0x%02X>" % b for b in range(256)] + ["a", "b"]


def tb(mode, data, expect, expect_cli=None):
    add("tokenizer_bin/%s.bin" % mode, data, "tokenizer", TOKENIZER, expect, needs="llama2c",
        expect_cli=expect_cli)


tb("bad_max_token_length", l2tok(base, max_len=-5), "max_token_length")
tb("truncated_record", l2tok(base)[:-3], "bytes, the file has")
tb("negative_length", l2tok(base)[:4] + struct.pack("<fi", 0.0, -7), "has length -7",
   "261 records need at least")
tb("length_over_max", l2tok(["x" * 20] + base, max_len=8), "has length 20")
tb("too_few_tokens", l2tok(["a", "b", "c"]), "at least 259 tokens", "261 records need at least")
tb("nan_score", l2tok(base, scores=[float("nan")] * len(base)), "non-finite score")


# ---------------------------------------------------------------- llama2.c checkpoints
def l2header(dim=8, hidden=16, layers=1, heads=2, kv=2, vocab=261, seq=8):
    return struct.pack("<7i", dim, hidden, layers, heads, kv, vocab, seq)


def l2floats(dim=8, hidden=16, layers=1, heads=2, kv=2, vocab=261, seq=8, shared=True):
    hs = dim // heads
    n = vocab * dim + layers * dim + layers * dim * dim + 2 * layers * kv * hs * dim
    n += layers * dim * dim + layers * dim + 3 * layers * hidden * dim + dim + seq * hs
    if not shared:
        n += vocab * dim
    return n


rng = np.random.default_rng(0)
tiny = l2header() + (rng.standard_normal(l2floats()).astype("<f4") * 0.1).tobytes()
os.makedirs(os.path.join(ROOT, "hosts"), exist_ok=True)
with open(os.path.join(ROOT, "hosts", "tiny_llama2c.bin"), "wb") as f:
    f.write(tiny)
# The tokenizer tests need a good tokenizer for the host too (the test checks the host loads).
with open(os.path.join(ROOT, "hosts", "tiny_tokenizer.bin"), "wb") as f:
    f.write(l2tok(base))


def lc(mode, data, expect):
    add("llama2c/%s.bin" % mode, data, "model", INSPECT, expect, needs="llama2c")


# looksLikeLlama2c accepts any header whose 7 values are within a real checkpoint's bounds, so a
# broken checkpoint gets the loader's own message; a header out of bounds is not taken for one.
UNRECOGNIZED = "not a recognized tensor file"
SIZE = "bytes, the file has"
lc("truncated_weights", tiny[:-40], SIZE)
lc("extra_bytes", tiny + bytes(12), SIZE)
lc("dim_not_divisible", l2header(dim=9, heads=2) + bytes(64), "not divisible by n_heads")
lc("odd_head_size", l2header(dim=6, heads=2, kv=2) + bytes(64), "must be even")
lc("kv_heads_not_divisor", l2header(heads=4, kv=3) + bytes(64), "not divisible by n_kv_heads")
lc("huge_vocab", l2header(vocab=1 << 30) + bytes(64), UNRECOGNIZED)
lc("header_only", l2header(), SIZE)

# ---------------------------------------------------------------- config.json (HF folders)
def cfg(mode, config, expect, extra=None):
    files = {"config.json": config}
    files.update(extra or {})
    add_folder("config_json/%s" % mode, files, "model", INSPECT, expect, needs="hf")


gpt2 = {"model_type": "gpt2", "n_embd": 8, "n_head": 2, "n_layer": 1, "n_positions": 16,
        "vocab_size": 16, "n_inner": None, "activation_function": "gelu_new",
        "layer_norm_epsilon": 1e-5}
cfg("bad_json", '{"model_type": "gpt2", "n_embd": ', "not valid JSON")
cfg("not_an_object", "[1, 2, 3]", "expected a JSON object")
cfg("missing_model_type", json.dumps({"n_embd": 8}), "model_type")
cfg("unsupported_model_type", json.dumps(dict(gpt2, model_type="mamba")), "mamba")
cfg("head_count_mismatch", json.dumps(dict(gpt2, n_embd=9)), "not divisible")
cfg("negative_layers", json.dumps(dict(gpt2, n_layer=-1)), "n_layer")
cfg("string_for_int", json.dumps(dict(gpt2, n_head="two")), "must be an integer")
cfg("no_weights", json.dumps(gpt2), "weights")

# ---------------------------------------------------------------- torch.save
def pt(mode, data, expect):
    add("torch/%s.pt" % mode, data, "model", INSPECT, expect, needs="torch")


zbuf = io.BytesIO()
with zipfile.ZipFile(zbuf, "w") as z:
    z.writestr(zipfile.ZipInfo("archive/data.pkl", (1980, 1, 1, 0, 0, 0)), b"\x80\x02}q\x00.")
    z.writestr(zipfile.ZipInfo("archive/version", (1980, 1, 1, 0, 0, 0)), "3\n")
whole = zbuf.getvalue()
pt("truncated_zip", whole[:len(whole) // 2], "zip")
zbuf = io.BytesIO()
with zipfile.ZipFile(zbuf, "w") as z:
    z.writestr(zipfile.ZipInfo("archive/version", (1980, 1, 1, 0, 0, 0)), "3\n")
pt("no_data_pkl", zbuf.getvalue(), "data.pkl")
zbuf = io.BytesIO()
with zipfile.ZipFile(zbuf, "w") as z:
    # GLOBAL os.system: a pickle that would run a command under a plain unpickler.
    z.writestr(zipfile.ZipInfo("archive/data.pkl", (1980, 1, 1, 0, 0, 0)), b"\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85q\x02Rq\x03.")
    z.writestr(zipfile.ZipInfo("archive/version", (1980, 1, 1, 0, 0, 0)), "3\n")
pt("refused_global", zbuf.getvalue(), "os")
pt("legacy_truncated", b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19.", "torch")

for e in entries:
    for fmt in ("safetensors", "npy"):
        pass
with open(os.path.join(ROOT, "manifest.json"), "w") as f:
    json.dump({"comment": "made by scripts/make_malformed_corpus.py; cli args: {file} the entry, "
               "{fixtures} tests/fixtures, {out} a fresh output path",
               "entries": entries}, f, indent=1)
print("%d entries" % len(entries))
