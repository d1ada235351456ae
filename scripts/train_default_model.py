#!/usr/bin/python3
"""Train headmap's embedded default model: a tiny GPT-2 on a generated English corpus.

Everything here is written by the project: the corpus generator (templates and word lists below),
a byte-level BPE trainer (GPT-2 style), a GPT-2 forward pass in plain PyTorch and a safetensors
writer. Output is a Hugging Face "gpt2" folder (config.json, model.safetensors, tokenizer.json)
that the app loads like any other GPT-2 checkpoint.

Run with Debian's PyTorch (no transformers, no tokenizers package needed):
    /usr/bin/python3 scripts/train_default_model.py [--out resources/default_model] [--steps N]
Then check the heads and refresh the C++ reference:
    /usr/bin/python3 scripts/analyze_default_model.py

Seeds are fixed and training runs on one CPU thread, so a rerun reproduces the same weights.
"""
import argparse
import json
import math
import os
import random
import re
import struct
import time

import numpy as np
import torch
import torch.nn.functional as F

SEED = 1234
CONFIG = dict(n_layer=2, n_head=4, n_embd=64, n_positions=128)
NUM_MERGES = 511  # 256 byte symbols + 511 merges + <|endoftext|> = 768 ids at most
EOT = "<|endoftext|>"

# ---------------------------------------------------------------------------------------------
# Corpus: short stories made from templates. Names recur inside a story (copying from context)
# and some stories repeat an earlier sentence verbatim, so that induction heads have a reason
# to form. All word lists are written here; the corpus is the project's own text.
# ---------------------------------------------------------------------------------------------
NAMES = ("Anna Ben Mia Tom Lily Sam Max Zoe Leo Emma Jack Nora Omar Ravi Yuki Ivan Sara Paul "
         "Lucy Hugo Ella Finn Rosa Adam Kate Noah Iris Theo Maya Luca").split()
ANIMALS = "cat dog bird fox fish horse rabbit mouse duck frog bear owl goat sheep lion".split()
OBJECTS = ("ball book box cup hat kite key map lamp boat cake apple letter shoe stone drum coin "
           "bell bag clock").split()
ADJS = ("red blue green big small old new happy sad quiet bright soft warm cold tall little "
        "yellow brown funny gentle").split()
PLACES = ("garden park kitchen forest river school market house field beach library village hill "
          "station bakery").split()
FURNITURE = "table chair bed shelf floor desk".split()
VT = "saw found took lost liked painted carried opened dropped washed bought hid".split()
VI = "ran slept sang smiled laughed waited jumped walked danced played".split()
TIMES = ("In the morning|At night|One day|Later|Then|After lunch|On Sunday|Every day|"
         "In the evening|Soon").split("|")
NUMS = "two three four five six seven".split()
FEELINGS = "happy sad tired hungry excited scared proud".split()

TEMPLATES = [
    "{A} saw a {adj} {animal} in the {place}.",
    "The {animal} {vi} near the {place}.",
    "{A} gave the {obj} to {B}.",
    "{time}, {A} {vt} the {adj} {obj}.",
    "{A} and {B} went to the {place}.",
    "The {adj} {obj} was on the {furn}.",
    "{A} said that the {animal} was {adj}.",
    "{A} has {num} {obj}s.",
    "Where is the {obj}? It is in the {place}.",
    "{A} likes the {animal}, and {B} likes the {obj}.",
    "{A} was {feel} because the {obj} was {adj}.",
    "{time}, the {animal} {vi} with {A}.",
    "{B} asked {A} about the {adj} {obj}.",
    "{A} {vt} a {obj} at the {place}.",
    "The {animal} looked at {B} and {vi}.",
]


def make_sentence(rng, a, b):
    t = rng.choice(TEMPLATES)
    return t.format(A=a, B=b, adj=rng.choice(ADJS), animal=rng.choice(ANIMALS),
                    obj=rng.choice(OBJECTS), place=rng.choice(PLACES), furn=rng.choice(FURNITURE),
                    vt=rng.choice(VT), vi=rng.choice(VI), time=rng.choice(TIMES),
                    num=rng.choice(NUMS), feel=rng.choice(FEELINGS))


def make_story(rng, n_sentences):
    """A few sentences about two characters; half the stories repeat an earlier sentence."""
    a, b = rng.sample(NAMES, 2)
    sents = []
    for _ in range(n_sentences):
        x, y = (a, b) if rng.random() < 0.6 else (b, a)
        sents.append(make_sentence(rng, x, y))
    if rng.random() < 0.5 and len(sents) >= 3:
        src = rng.randrange(len(sents) - 1)
        dst = rng.randrange(src + 2, len(sents) + 1)
        sents.insert(dst, sents[src])
    return " ".join(sents)


# ---------------------------------------------------------------------------------------------
# Byte-level BPE, GPT-2 style.
# ---------------------------------------------------------------------------------------------
def bytes_to_unicode():
    """GPT-2's reversible map from the 256 bytes to printable characters (space -> 'Ġ')."""
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) +
          list(range(ord("®"), ord("ÿ") + 1)))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


BYTE_ENCODER = bytes_to_unicode()
# GPT-2's pre-tokenizer regex restricted to ASCII letters/digits (Python's re has no \p{L}); the
# corpus is ASCII, where both agree.
PRETOKENIZE = re.compile(
    r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")


def pretokenize(text):
    return ["".join(BYTE_ENCODER[b] for b in piece.encode("utf-8"))
            for piece in PRETOKENIZE.findall(text)]


def train_bpe(texts, num_merges):
    """Returns the merges list [(left, right), ...] learnt from the texts."""
    word_counts = {}
    for text in texts:
        for w in pretokenize(text):
            word_counts[w] = word_counts.get(w, 0) + 1
    words = [(list(w), c) for w, c in sorted(word_counts.items())]
    merges = []
    for _ in range(num_merges):
        pairs = {}
        for syms, c in words:
            for p in zip(syms, syms[1:]):
                pairs[p] = pairs.get(p, 0) + c
        if not pairs:
            break
        best = min(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[0]  # ties: smallest pair
        merges.append(best)
        joined = best[0] + best[1]
        for syms, _ in words:
            i = 0
            while i < len(syms) - 1:
                if syms[i] == best[0] and syms[i + 1] == best[1]:
                    syms[i:i + 2] = [joined]
                i += 1
    return merges


class BpeTokenizer:
    def __init__(self, vocab, merges):
        self.vocab = vocab  # piece -> id
        self.pieces = {i: p for p, i in vocab.items()}
        self.ranks = {tuple(m): r for r, m in enumerate(merges)}
        self.cache = {}

    def _bpe(self, word):
        if word in self.cache:
            return self.cache[word]
        syms = list(word)
        while len(syms) > 1:
            ranked = [(self.ranks.get(p, math.inf), i) for i, p in enumerate(zip(syms, syms[1:]))]
            rank, i = min(ranked)
            if rank == math.inf:
                break
            syms[i:i + 2] = [syms[i] + syms[i + 1]]
        self.cache[word] = syms
        return syms

    def encode(self, text):
        return [self.vocab[s] for w in pretokenize(text) for s in self._bpe(w)]

    def piece(self, i):
        return self.pieces[i]


def build_tokenizer(texts):
    merges = train_bpe(texts, NUM_MERGES)
    byte_syms = list(BYTE_ENCODER.values())  # GPT-2's id order for the 256 byte symbols
    vocab = {s: i for i, s in enumerate(byte_syms)}
    for left, right in merges:
        vocab[left + right] = len(vocab)
    vocab[EOT] = len(vocab)
    return vocab, merges


def tokenizer_json(vocab, merges):
    """Hugging Face tokenizers format, as GPT-2's own tokenizer.json."""
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [{"id": vocab[EOT], "content": EOT, "single_word": False,
                          "lstrip": False, "rstrip": False, "normalized": True, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                          "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
                           "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                    "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": "", "end_of_word_suffix": "", "fuse_unk": False,
                  "byte_fallback": False, "vocab": vocab,
                  "merges": [f"{a} {b}" for a, b in merges]},
    }


def load_tokenizer(path):
    with open(path, encoding="utf-8") as f:
        tj = json.load(f)
    vocab = dict(tj["model"]["vocab"])
    for t in tj["added_tokens"]:
        vocab[t["content"]] = t["id"]
    merges = [tuple(m.split(" ")) for m in tj["model"]["merges"]]
    return BpeTokenizer(vocab, merges)


# ---------------------------------------------------------------------------------------------
# GPT-2 in plain PyTorch, parameters stored exactly as Hugging Face names and lays them out
# (Conv1D weights are (in, out): y = x @ W + b).
# ---------------------------------------------------------------------------------------------
def init_params(cfg, vocab_size, gen):
    d, L = cfg["n_embd"], cfg["n_layer"]

    def normal(*shape, std=0.02):
        return torch.randn(*shape, generator=gen) * std

    p = {"wte.weight": normal(vocab_size, d), "wpe.weight": normal(cfg["n_positions"], d, std=0.01)}
    proj_std = 0.02 / math.sqrt(2 * L)
    for i in range(L):
        h = f"h.{i}."
        p[h + "ln_1.weight"], p[h + "ln_1.bias"] = torch.ones(d), torch.zeros(d)
        p[h + "attn.c_attn.weight"], p[h + "attn.c_attn.bias"] = normal(d, 3 * d), torch.zeros(3 * d)
        p[h + "attn.c_proj.weight"] = normal(d, d, std=proj_std)
        p[h + "attn.c_proj.bias"] = torch.zeros(d)
        p[h + "ln_2.weight"], p[h + "ln_2.bias"] = torch.ones(d), torch.zeros(d)
        p[h + "mlp.c_fc.weight"], p[h + "mlp.c_fc.bias"] = normal(d, 4 * d), torch.zeros(4 * d)
        p[h + "mlp.c_proj.weight"] = normal(4 * d, d, std=proj_std)
        p[h + "mlp.c_proj.bias"] = torch.zeros(d)
    p["ln_f.weight"], p["ln_f.bias"] = torch.ones(d), torch.zeros(d)
    return p


def forward(p, cfg, ids, return_attn=False):
    """ids: (B, T) long -> logits (B, T, V); attention per layer (B, H, T, T) when asked."""
    d, H, eps = cfg["n_embd"], cfg["n_head"], cfg.get("layer_norm_epsilon", 1e-5)
    B, T = ids.shape
    dk = d // H
    x = p["wte.weight"][ids] + p["wpe.weight"][:T]
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    attns = []
    for i in range(cfg["n_layer"]):
        h = f"h.{i}."
        a = F.layer_norm(x, (d,), p[h + "ln_1.weight"], p[h + "ln_1.bias"], eps)
        qkv = a @ p[h + "attn.c_attn.weight"] + p[h + "attn.c_attn.bias"]  # (B, T, 3d)
        q, k, v = (t.view(B, T, H, dk).transpose(1, 2) for t in qkv.split(d, dim=2))
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(dk)  # (B, H, T, T)
        w = scores.masked_fill(~mask, float("-inf")).softmax(-1)
        if return_attn:
            attns.append(w)
        o = (w @ v).transpose(1, 2).reshape(B, T, d)
        x = x + o @ p[h + "attn.c_proj.weight"] + p[h + "attn.c_proj.bias"]
        m = F.layer_norm(x, (d,), p[h + "ln_2.weight"], p[h + "ln_2.bias"], eps)
        m = F.gelu(m @ p[h + "mlp.c_fc.weight"] + p[h + "mlp.c_fc.bias"], approximate="tanh")
        x = x + m @ p[h + "mlp.c_proj.weight"] + p[h + "mlp.c_proj.bias"]
    x = F.layer_norm(x, (d,), p["ln_f.weight"], p["ln_f.bias"], eps)
    logits = x @ p["wte.weight"].t()  # tied LM head, as GPT2LMHeadModel
    return (logits, attns) if return_attn else logits


# ---------------------------------------------------------------------------------------------
# safetensors, written and read by hand: u64 LE header size, JSON header, raw little-endian data.
# ---------------------------------------------------------------------------------------------
def write_safetensors(path, tensors):
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        arr = np.ascontiguousarray(tensors[name].detach().numpy().astype("<f4"))
        header[name] = {"dtype": "F32", "shape": list(arr.shape),
                        "data_offsets": [offset, offset + arr.nbytes]}
        blobs.append(arr.tobytes())
        offset += arr.nbytes
    hbytes = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hbytes += b" " * (-len(hbytes) % 8)  # keep the data 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hbytes)))
        f.write(hbytes)
        for b in blobs:
            f.write(b)


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", info
        b, e = info["data_offsets"]
        arr = np.frombuffer(data[8 + n + b:8 + n + e], dtype="<f4").reshape(info["shape"])
        out[name] = torch.from_numpy(arr.copy())
    return out


def load_model(folder):
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    params = read_safetensors(os.path.join(folder, "model.safetensors"))
    tok = load_tokenizer(os.path.join(folder, "tokenizer.json"))
    return cfg, params, tok


# ---------------------------------------------------------------------------------------------
# Training data: fixed-length windows that start at a story's first token (the app shows a
# sentence the user typed, without BOS), mixed with repeated random token sequences.
# ---------------------------------------------------------------------------------------------
def make_example(rng, tok, vocab_size, length):
    kind = rng.random()
    if kind < 0.4:
        ids = []
        while len(ids) < length:
            ids += tok.encode((" " if ids else "") + make_story(rng, rng.randint(3, 8)))
    else:
        # A random segment repeated until the window is full: pure induction practice.
        seg_len = rng.randint(4, 30)
        if rng.random() < 0.5:
            seg = [rng.randrange(vocab_size - 1) for _ in range(seg_len)]
        else:
            words = NAMES + ANIMALS + OBJECTS + ADJS + PLACES
            seg = tok.encode(" ".join(rng.choice(words) for _ in range(seg_len)))
        prefix = tok.encode(make_story(rng, rng.randint(0, 2))) if rng.random() < 0.5 else []
        ids = prefix[:]
        while len(ids) < length:
            ids += seg
    return ids[:length]


# Plain next-token training of a model this small on one CPU thread for a few minutes does not
# get past the induction "phase change" (a 1500-step run left every head diffuse). So three heads
# are guided by an auxiliary loss towards the textbook patterns, and the language-modelling loss
# decides what each of them carries. The remaining heads are free.
GUIDED_HEADS = {(0, 0): "previous-token", (0, 1): "first-token", (1, 0): "induction"}
GUIDE_WEIGHT = 1.0
# The induction pattern is the hard one (it needs the two layers to compose): weigh it more.
PATTERN_WEIGHT = {"previous-token": 1.0, "first-token": 1.0, "induction": 3.0}


def guide_targets(ids):
    """ids: (B, T) -> target key index (B, T) for each guided pattern."""
    B, T = ids.shape
    q = torch.arange(T)
    prev = (q - 1).clamp_min(0).expand(B, T)
    first = torch.zeros(B, T, dtype=torch.long)
    # Induction: the key after the most recent earlier occurrence of the query's token; the
    # first token when the token has not occurred before (where real induction heads rest).
    same = (ids[:, :, None] == ids[:, None, :]) & (q[None, :] < q[:, None])[None]  # (B, q, k)
    last = torch.where(same, q[None, None, :], torch.full_like(same, -1, dtype=torch.long))
    last = last.max(-1).values
    induction = torch.where(last >= 0, last + 1, torch.zeros_like(last))
    return {"previous-token": prev, "first-token": first, "induction": induction}


def guide_loss(attns, ids):
    targets = guide_targets(ids)
    loss = 0.0
    for (layer, head), pattern in GUIDED_HEADS.items():
        logw = attns[layer][:, head].clamp_min(1e-9).log()  # (B, q, k)
        nll = F.nll_loss(logw.reshape(-1, logw.shape[-1]), targets[pattern].reshape(-1))
        loss = loss + PATTERN_WEIGHT[pattern] * nll
    return loss / sum(PATTERN_WEIGHT[p] for p in GUIDED_HEADS.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "resources", "default_model"))
    ap.add_argument("--steps", type=int, default=1400)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(SEED)
    rng = random.Random(SEED)

    t0 = time.time()
    bpe_texts = [make_story(rng, rng.randint(3, 8)) for _ in range(3000)]
    vocab, merges = build_tokenizer(bpe_texts)
    tok = BpeTokenizer(vocab, merges)
    V = len(vocab)
    print(f"tokenizer: {len(merges)} merges, vocab {V} ({time.time() - t0:.1f}s)")

    cfg = dict(CONFIG)
    T = cfg["n_positions"]

    gen = torch.Generator().manual_seed(SEED)
    params = init_params(cfg, V, gen)
    for t in params.values():
        t.requires_grad_(True)
    decay = [t for n, t in params.items() if n.endswith("weight") and t.dim() == 2]
    no_decay = [t for n, t in params.items() if not (n.endswith("weight") and t.dim() == 2)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.98))
    warmup = 100
    for step in range(args.steps):
        lr = args.lr * min(1.0, (step + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * step / args.steps))
        for g in opt.param_groups:
            g["lr"] = lr
        batch = torch.tensor([make_example(rng, tok, V, T + 1) for _ in range(args.batch)])
        logits, attns = forward(params, cfg, batch[:, :-1], return_attn=True)
        lm_loss = F.cross_entropy(logits.reshape(-1, V), batch[:, 1:].reshape(-1))
        g_loss = guide_loss(attns, batch[:, :-1])
        loss = lm_loss + GUIDE_WEIGHT * g_loss
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(params.values()), 1.0)
        opt.step()
        if step % 100 == 0 or step == args.steps - 1:
            print(f"step {step:5d} lm {lm_loss.item():.3f} guide {g_loss.item():.3f} lr {lr:.5f} ({time.time() - t0:.0f}s)",
                  flush=True)

    os.makedirs(args.out, exist_ok=True)
    write_safetensors(os.path.join(args.out, "model.safetensors"), params)
    config = {
        "architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": V,
        "n_positions": T, "n_ctx": T, "n_embd": cfg["n_embd"], "n_layer": cfg["n_layer"],
        "n_head": cfg["n_head"], "n_inner": None, "activation_function": "gelu_new",
        "resid_pdrop": 0.0, "embd_pdrop": 0.0, "attn_pdrop": 0.0, "layer_norm_epsilon": 1e-5,
        "initializer_range": 0.02, "scale_attn_weights": True, "tie_word_embeddings": True,
        "bos_token_id": vocab[EOT], "eos_token_id": vocab[EOT], "torch_dtype": "float32",
    }
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    with open(os.path.join(args.out, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer_json(vocab, merges), f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {args.out} ({time.time() - t0:.0f}s)")


if __name__ == "__main__":
    main()
