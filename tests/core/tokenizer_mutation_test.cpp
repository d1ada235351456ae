// Deterministic mutations of small valid tokenizer files (truncations and byte flips): each load
// must succeed or throw headmap::Error, never crash or throw anything else; a loaded tokenizer
// must encode and map ids without crashing either.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>

#include "core/common/error.h"
#include "core/tokenize/load_tokenizer.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

std::string llama2cBytes() {
  std::string data;
  auto i32 = [&](int32_t v) { data.append(reinterpret_cast<const char*>(&v), 4); };
  auto record = [&](const std::string& piece, float score) {
    data.append(reinterpret_cast<const char*>(&score), 4);
    i32(static_cast<int32_t>(piece.size()));
    data += piece;
  };
  i32(6);
  record("<unk>", 0);
  record("<s>", 0);
  record("</s>", 0);
  for (int b = 0; b < 256; ++b) record(std::string(1, static_cast<char>(b)), 0);
  for (const char* p : {" ", "a", "b", "ab", " a", " ab", "the", " the"}) record(p, 1);
  return data;
}

const char* kSmallBpeJson = R"({"added_tokens": [{"id": 5, "content": "<s>", "special": true}],
  "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "_"},
    {"type": "Replace", "pattern": {"String": " "}, "content": "_"}]},
  "pre_tokenizer": null,
  "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>"}},
    {"Sequence": {"id": "A"}}], "special_tokens": {"<s>": {"id": "<s>", "ids": [5]}}},
  "model": {"unk_token": "?", "byte_fallback": true, "fuse_unk": true,
    "vocab": {"?": 0, "a": 1, "b": 2, "_": 3, "ab": 4, "<s>": 5, "_ab": 6, "<0x61>": 7},
    "merges": ["a b", "_ ab"]}})";

const char* kSmallWordPieceJson = R"({"added_tokens": [{"id": 0, "content": "[UNK]"}],
  "normalizer": {"type": "BertNormalizer", "lowercase": true},
  "pre_tokenizer": {"type": "BertPreTokenizer"},
  "post_processor": {"type": "BertProcessing", "cls": ["[CLS]", 1], "sep": ["[SEP]", 2]},
  "model": {"unk_token": "[UNK]", "continuing_subword_prefix": "##",
    "max_input_chars_per_word": 100,
    "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hello": 3, "##s": 4, "world": 5}}})";

void exercise(const std::string& name, const std::string& content) {
  std::string path = test::tempPath(name);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  try {
    auto t = loadTokenizerFile(path, 0);
    ASSERT_TRUE(t);
    t->encode("hello abab the worlds, \xC3\xA9 \xF0\x9F\x98\x80 \xFF");
    t->encode("");
    if (t->vocabSize() > 0) t->fromIds({0, t->vocabSize() - 1});
    EXPECT_THROW(t->fromIds({t->vocabSize()}), Error);
  } catch (const Error&) {
    // refused with a message: fine
  } catch (const std::exception& e) {
    ADD_FAILURE() << name << ": threw a non-headmap exception: " << e.what();
  }
}

void mutateAll(const std::string& name, const std::string& valid) {
  exercise(name, valid);
  for (size_t cut = 0; cut < valid.size(); cut += 1 + valid.size() / 200) {
    exercise(name, valid.substr(0, cut));
  }
  uint32_t state = 12345;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  for (int round = 0; round < 400; ++round) {
    std::string m = valid;
    int flips = 1 + next() % 4;
    for (int f = 0; f < flips; ++f) m[next() % m.size()] = static_cast<char>(next() & 0xFF);
    exercise(name, m);
  }
}

TEST(TokenizerMutation, Llama2cBin) { mutateAll("tok.bin", llama2cBytes()); }
TEST(TokenizerMutation, SentencePieceJson) { mutateAll("tokenizer.json", kSmallBpeJson); }
TEST(TokenizerMutation, WordPieceJson) { mutateAll("tokenizer.json", kSmallWordPieceJson); }
TEST(TokenizerMutation, VocabTxt) {
  mutateAll("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n##s\nworld\n");
}

}  // namespace
}  // namespace headmap
