#!/usr/bin/python3
"""Score every head of the default model and write the C++ reference fixture.

Reads the exported folder back from disk (config.json, model.safetensors, tokenizer.json), so
the scores are of the files the app ships, not of the training process's memory. Prints per head:
  prev   mean attention on the previous token (k = q-1), queries q >= 2, held-out stories
  first  mean attention on the first token (k = 0), queries q >= 2, held-out stories
  induct on a random token sequence repeated twice (length L each), mean attention from a query in
         the second copy to the token after the previous occurrence of the query (k = q-L+1)
and writes tests/fixtures/default_model/reference.json: the token ids and pieces of one fixed
sentence with the attention of all layers and heads (layer, head, q, k) and the last logits row.

    /usr/bin/python3 scripts/analyze_default_model.py [--model resources/default_model]
"""
import argparse
import json
import os
import random

import torch
import torch.nn.functional as F

import train_default_model as tdm

REFERENCE_TEXT = "Mia found a blue kite in the park. Mia found a blue kite"
HELD_OUT_SEED = 987654  # differs from the training seed: these stories were not trained on


def head_scores(cfg, params, tok, n_stories=200, n_random=200, rep_len=20):
    vocab_size = cfg["vocab_size"]
    L, H, T = cfg["n_layer"], cfg["n_head"], cfg["n_positions"]
    rng = random.Random(HELD_OUT_SEED)
    prev = torch.zeros(L, H)
    first = torch.zeros(L, H)
    nq = 0
    loss_sum, loss_n = 0.0, 0
    for _ in range(n_stories):
        ids = tok.encode(tdm.make_story(rng, rng.randint(3, 8)))[:T]
        x = torch.tensor([ids])
        logits, attns = tdm.forward(params, cfg, x, return_attn=True)
        loss_sum += F.cross_entropy(logits[0, :-1], x[0, 1:], reduction="sum").item()
        loss_n += len(ids) - 1
        q = torch.arange(2, len(ids))
        for l, a in enumerate(attns):  # a: (1, H, n, n)
            prev[l] += a[0][:, q, q - 1].sum(-1)
            first[l] += a[0][:, q, 0].sum(-1)
        nq += len(q)
    prev /= nq
    first /= nq

    induct = torch.zeros(L, H)
    copy_acc, copy_n = 0, 0
    for _ in range(n_random):
        seg = [rng.randrange(vocab_size - 1) for _ in range(rep_len)]  # no <|endoftext|>
        x = torch.tensor([seg + seg])
        logits, attns = tdm.forward(params, cfg, x, return_attn=True)
        q = torch.arange(rep_len, 2 * rep_len)
        for l, a in enumerate(attns):
            induct[l] += a[0][:, q, q - rep_len + 1].mean(-1)
        pred = logits[0, rep_len:2 * rep_len - 1].argmax(-1)
        copy_acc += (pred == x[0, rep_len + 1:]).sum().item()
        copy_n += rep_len - 1
    induct /= n_random
    return prev, first, induct, loss_sum / loss_n, copy_acc / copy_n


def write_reference(cfg, params, tok, path):
    ids = tok.encode(REFERENCE_TEXT)
    with torch.no_grad():
        logits, attns = tdm.forward(params, cfg, torch.tensor([ids]), return_attn=True)
    ref = {
        "about": "Attention of resources/default_model for one sentence, computed by "
                 "scripts/analyze_default_model.py with PyTorch (float32). attention is indexed "
                 "[layer][head][query][key] (causal softmax weights); logits_last is the LM-head "
                 "output (tied to wte) for the last token.",
        "text": REFERENCE_TEXT,
        "ids": ids,
        "tokens": [tok.piece(i) for i in ids],
        "n_layer": cfg["n_layer"],
        "n_head": cfg["n_head"],
        "attention": [[[[round(float(v), 7) for v in row] for row in head] for head in a[0]]
                      for a in attns],
        "logits_last": [round(float(v), 5) for v in logits[0, -1]],
    }
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    return ids


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=os.path.join(here, "..", "resources", "default_model"))
    ap.add_argument("--reference",
                    default=os.path.join(here, "..", "tests", "fixtures", "default_model",
                                         "reference.json"))
    ap.add_argument("--no-reference", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)

    cfg, params, tok = tdm.load_model(args.model)
    with torch.no_grad():
        prev, first, induct, loss, copy_acc = head_scores(cfg, params, tok)
    print(f"held-out story loss {loss:.3f} nats/token; next-token accuracy on the second copy of "
          f"a repeated random sequence {copy_acc:.3f}")
    print("layer head   prev  first  induct   role")
    for l in range(cfg["n_layer"]):
        for h in range(cfg["n_head"]):
            roles = [name for name, s in (("previous-token", prev), ("first-token", first),
                                          ("induction", induct)) if s[l, h] > 0.5]
            print(f"{l:5d} {h:4d}  {prev[l, h]:.3f}  {first[l, h]:.3f}  {induct[l, h]:.3f}   "
                  f"{', '.join(roles)}")
    if not args.no_reference:
        ids = write_reference(cfg, params, tok, args.reference)
        print(f"reference: {len(ids)} tokens {[tok.piece(i) for i in ids]} -> {args.reference}")


if __name__ == "__main__":
    main()
