#!/usr/bin/python3
"""Small seed inputs for the fuzz targets that have no tiny fixture: tokenizer.json (byte-level
BPE, SentencePiece BPE, WordPiece), vocab.json + NUL + merges.txt, vocab.txt, llama2.c
tokenizer.bin. Usage: make_seeds.py CORPUS_ROOT (writes CORPUS_ROOT/<target>/seed_*)."""
import json
import os
import struct
import sys

root = sys.argv[1]


def put(target, name, data):
    d = os.path.join(root, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed_" + name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


# GPT-2 byte-level alphabet for a few printable bytes plus Ġ (space) and Ċ (newline).
pieces = list("abcdehlorw!,.0123456789") + ["Ġ", "Ċ", "he", "ll", "llo", "hello", "Ġw", "Ġwor",
                                             "Ġworld", "ab", "ba"]
vocab = {p: i for i, p in enumerate(pieces)}
merges = ["h e", "l l", "ll o", "he llo", "Ġ w", "Ġw o", "Ġwo r", "a b", "b a"]
merges = [m for m in merges if m.replace(" ", "") in vocab or True]
bpe = {
    "version": "1.0",
    "added_tokens": [{"id": len(vocab), "content": "<|endoftext|>", "special": True}],
    "normalizer": None,
    "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True},
    "post_processor": {"type": "ByteLevel"},
    "decoder": {"type": "ByteLevel"},
    "model": {"type": "BPE", "vocab": vocab, "merges": merges, "unk_token": None},
}
put("fuzz_tokenizer_json", "bytelevel_bpe.json", json.dumps(bpe))
put("fuzz_tokenizer_json", "bytelevel_bpe_pairs.json",
    json.dumps(dict(bpe, model=dict(bpe["model"], merges=[m.split(" ") for m in merges]))))

sp_vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "<0x0A>": 3, "▁": 4, "h": 5, "e": 6, "l": 7,
            "o": 8, "▁h": 9, "ll": 10, "▁he": 11, "llo": 12, "▁hello": 13}
sp = {
    "added_tokens": [{"id": 0, "content": "<unk>", "special": True},
                     {"id": 1, "content": "<s>", "special": True}],
    "normalizer": {"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "},
                                              "content": "▁"}]},
    "pre_tokenizer": None,
    "post_processor": {"type": "TemplateProcessing",
                       "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                                  {"Sequence": {"id": "A", "type_id": 0}}],
                       "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
    "model": {"type": "BPE", "vocab": sp_vocab, "byte_fallback": True, "unk_token": "<unk>",
              "merges": ["▁ h", "l l", "▁h e", "ll o", "▁he llo"]},
}
put("fuzz_tokenizer_json", "sentencepiece_bpe.json", json.dumps(sp))
put("fuzz_tokenizer_json", "sentencepiece_bpe_config.json",
    json.dumps(dict(sp, post_processor=None)) + "\0" +
    json.dumps({"add_bos_token": True, "add_eos_token": True}))

wp_vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "##s", "##ing", "a",
            "b", "##a", "##b", ",", "!", "1", "##2"]
wp = {
    "added_tokens": [{"id": i, "content": t, "special": True} for i, t in enumerate(wp_vocab[:5])],
    "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                   "strip_accents": None, "lowercase": True},
    "pre_tokenizer": {"type": "BertPreTokenizer"},
    "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
    "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
              "max_input_chars_per_word": 100,
              "vocab": {t: i for i, t in enumerate(wp_vocab)}},
}
put("fuzz_tokenizer_json", "wordpiece.json", json.dumps(wp))
put("fuzz_tokenizer_json", "split_pretokenizer.json", json.dumps(dict(bpe, pre_tokenizer={
    "type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": "(?i:'s|'t)|\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+"},
         "behavior": "Isolated", "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False}]})))

put("fuzz_vocab_merges", "gpt2.txt",
    json.dumps(dict(vocab, **{"<|endoftext|>": len(vocab)})) + "\0#version: 0.2\n" +
    "\n".join(merges) + "\n")
put("fuzz_vocab_txt", "bert.txt", "\n".join(wp_vocab) + "\n")
put("fuzz_vocab_txt", "cased.txt", "\n".join(wp_vocab + ["Hello", "World"]) + "\n")


def llama2c(pieces, max_len):
    out = struct.pack("<i", max_len)
    for i, p in enumerate(pieces):
        b = p.encode("utf-8")
        out += struct.pack("<fi", -float(i), len(b)) + b
    return out


l2_pieces = ["<unk>", "\n<s>\n", "\n</s>\n"] + ["<0x%02X>" % b for b in range(256)] + [
    " ", "h", "e", "l", "o", " h", "ll", " he", "llo", " hello", "é"]
put("fuzz_llama2c_tokenizer", "to_end.bin", b"\x01" + llama2c(l2_pieces, 7))
put("fuzz_llama2c_tokenizer", "count.bin", bytes([200]) + llama2c(l2_pieces, 7))
