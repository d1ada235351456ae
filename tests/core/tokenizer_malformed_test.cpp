// Hostile tokenizer files: each must throw headmap::Error with a message naming the file and the
// problem, never crash, hang or allocate without bound.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/tokenize/load_tokenizer.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

std::string writeIn(const std::string& dirName, const std::string& name,
                    const std::string& content) {
  std::filesystem::path dir = test::tempPath(dirName);
  std::filesystem::create_directories(dir);
  std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

// Loads `path` and expects an Error whose message has the path and every one of `needles`.
void expectRefused(const std::string& path, std::vector<std::string> needles, int hint = 0,
                   std::string named = "") {
  if (named.empty()) named = path;
  try {
    loadTokenizerFile(path, hint);
    ADD_FAILURE() << path << ": loaded without an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(named), std::string::npos) << "message does not name the file: " << msg;
    for (const std::string& n : needles) {
      EXPECT_NE(msg.find(n), std::string::npos) << "message lacks '" << n << "': " << msg;
    }
  }
}

std::string int32s(std::initializer_list<int32_t> values) {
  std::string s;
  for (int32_t v : values) s.append(reinterpret_cast<const char*>(&v), 4);
  return s;
}

std::string floatBytes(float f) { return std::string(reinterpret_cast<const char*>(&f), 4); }

std::string validLlama2c(int records) {
  std::string data = int32s({8});
  for (int i = 0; i < records; ++i) {
    std::string piece = "t" + std::to_string(i);
    data += floatBytes(0) + int32s({static_cast<int32_t>(piece.size())}) + piece;
  }
  return data;
}

TEST(TokenizerMalformed, Llama2cTruncatedAndBadRecords) {
  std::string good = validLlama2c(300);
  expectRefused(writeIn("a", "tok.bin", good.substr(0, good.size() - 2)),
                {"record 299", "bytes", "left"});
  expectRefused(writeIn("b", "tok.bin", good.substr(0, 2)), {"max_token_length", "4 bytes"});
  expectRefused(writeIn("c", "tok.bin", int32s({0x7fffffff}) + good.substr(4)),
                {"max_token_length"});
  std::string negative = good.substr(0, 4) + floatBytes(0) + int32s({-5}) + good.substr(12);
  expectRefused(writeIn("d", "tok.bin", negative), {"record 0", "length -5"});
  std::string tooLong = good.substr(0, 4) + floatBytes(0) + int32s({9}) + good.substr(12);
  expectRefused(writeIn("e", "tok.bin", tooLong), {"record 0", "length 9", "0..8"});
  // The model says 100000 tokens, the file has 300.
  expectRefused(writeIn("f", "tok.bin", good), {"100000 records"}, 100000);
  expectRefused(writeIn("g", "tok.bin", validLlama2c(40)), {"259", "40"});
  std::string nan = good.substr(0, 4) + floatBytes(std::nanf("")) + good.substr(8);
  expectRefused(writeIn("h", "tok.bin", nan), {"record 0", "score"});
  // A record whose length runs past the end of the file.
  std::string pastEnd = validLlama2c(299) + floatBytes(0) + int32s({8}) + "abc";
  expectRefused(writeIn("i", "tok.bin", pastEnd), {"record 299", "8 bytes", "3 left"});
}

TEST(TokenizerMalformed, EmptyAndBinaryGarbage) {
  expectRefused(writeIn("a", "tokenizer.json", ""), {"empty"});
  std::string garbage;
  for (int i = 0; i < 1000; ++i) garbage += static_cast<char>((i * 7919) & 0xFF);
  expectRefused(writeIn("b", "tok.bin", garbage), {});
  EXPECT_THROW(loadTokenizerFile(test::tempPath("does-not-exist.json")), Error);
}

TEST(TokenizerMalformed, BadJson) {
  expectRefused(writeIn("a", "tokenizer.json", R"({"model": {"vocab": {"a": 0)"), {"JSON"});
  expectRefused(writeIn("b", "tokenizer.json", std::string(100000, '[')), {"nests"});
  expectRefused(writeIn("c", "tokenizer.json", "{\"model\": {\"vocab\": [\"a\"], \"x\": 1}}"),
                {"Unigram", "not supported"});
  expectRefused(writeIn("d", "tokenizer.json", R"({"model": {"vocab": {"a": -3}, "merges": []}})"),
                {"'a'", "-3"});
  expectRefused(
      writeIn("e", "tokenizer.json", R"({"model": {"vocab": {"a": 99999999999}, "merges": []}})"),
      {"'a'"});
  expectRefused(writeIn("f", "tokenizer.json", R"({"model": {"vocab": {"a": "0"}, "merges": []}})"),
                {"'a'", "integer"});
  expectRefused(writeIn("g", "tokenizer.json", R"({"model": {"vocab": 5, "merges": []}})"),
                {"vocab"});
  expectRefused(writeIn("h", "tokenizer.json",
                        R"({"model": {"vocab": {"a": 0, "b": 1}, "merges": ["a b"]}})"),
                {"merge 1", "'ab'"});
  expectRefused(
      writeIn("i", "tokenizer.json", R"({"model": {"vocab": {"a": 0, "b": 1}, "merges": ["ab"]}})"),
      {"merge 1", "'ab'"});
  expectRefused(writeIn("j", "tokenizer.json", R"({"model": {"vocab": {"a": 0}, "merges": [7]}})"),
                {"merge 1"});
  expectRefused(writeIn("k", "tokenizer.json",
                        R"({"added_tokens": [{"id": "x", "content": "<s>"}],
                            "model": {"vocab": {"a": 0}, "merges": []}})"),
                {"added token 0"});
  expectRefused(writeIn("l", "tokenizer.json",
                        R"({"post_processor": {"type": "TemplateProcessing", "single":
                            [{"SpecialToken": {"id": "<s>"}}]},
                            "model": {"vocab": {"a": 0}, "merges": []}})"),
                {"'<s>'"});
  expectRefused(writeIn("m", "tokenizer.json",
                        R"({"model": {"vocab": {"a": 0}, "continuing_subword_prefix": "##"}})"),
                {"[UNK]"});
  expectRefused(writeIn("n", "tokenizer.json",
                        R"({"pre_tokenizer": {"type": "Split"}, "model": {"vocab": {"a": 0},
                            "merges": []}})"),
                {"Split", "not supported"});
  expectRefused(writeIn("o", "tokenizer.json", R"({"model": 3})"), {"model"});
  expectRefused(writeIn("q", "tokenizer.json",
                        R"({"model": {"vocab": {"a": 0, "b": 3000000}, "merges": []}})"),
                {"3000000", "dense"});
  expectRefused(writeIn("r", "tokenizer.json",
                        R"({"added_tokens": [{"id": 4000000, "content": "<x>"}],
                            "model": {"vocab": {"a": 0}, "merges": []}})"),
                {"'<x>'", "4000000"});
  expectRefused(writeIn("p", "tokenizer.json",
                        R"({"post_processor": {"type": "TemplateProcessing", "single":
                            [{"SpecialToken": {"id": "<s>"}}], "special_tokens": {"<s>": 5}},
                            "model": {"vocab": {"a": 0}, "merges": []}})"),
                {"'<s>'"});
}

TEST(TokenizerMalformed, VocabJsonAndMergesTxt) {
  std::string vocab = writeIn("a", "vocab.json", R"({"a": 0, "b": 1, "ab": 2})");
  expectRefused(vocab, {"merges.txt", "does not exist"});
  std::string dir = std::filesystem::path(vocab).parent_path().string();
  std::ofstream(dir + "/merges.txt") << "#version: 0.2\na b\nab\n";
  expectRefused(vocab, {"line 3", "'ab'"}, 0, dir + "/merges.txt");
  std::ofstream(dir + "/merges.txt") << "#version: 0.2\na c\n";
  expectRefused(vocab, {"merge 1", "'c'"});
  std::ofstream(dir + "/merges.txt") << "#version: 0.2\na b\n";
  EXPECT_EQ(loadTokenizerFile(vocab)->encode("ab").at(0).id, 2);
  expectRefused(writeIn("b", "vocab.json", "[1, 2]"), {"model"});
}

TEST(TokenizerMalformed, VocabTxt) {
  expectRefused(writeIn("a", "vocab.txt", "[PAD]\nhello\nworld\n"), {"[UNK]"});
  expectRefused(writeIn("b", "vocab.txt", "\n\n\n"), {"no tokens"});
  auto t = loadTokenizerFile(writeIn("c", "vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n##s\n"));
  std::vector<int> ids;
  for (const Token& token : t->encode("Hellos there")) ids.push_back(token.id);
  EXPECT_EQ(ids, (std::vector<int>{2, 4, 5, 1, 3}));
}

TEST(TokenizerMalformed, SentencePieceModelIsNamed) {
  std::string path = test::sharedModel("stories260K/tok512.model");
  HEADMAP_SKIP_WITHOUT(path);
  expectRefused(path, {"SentencePiece", "tokenizer.json"});
}

TEST(TokenizerMalformed, FolderWithoutTokenizer) {
  std::string dir = test::tempPath("empty-folder");
  std::filesystem::create_directories(dir);
  EXPECT_EQ(loadTokenizerFromFolder(dir), nullptr);
  expectRefused(dir, {"no tokenizer"});
}

}  // namespace
}  // namespace headmap
