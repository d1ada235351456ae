// Tokenizer pieces on small hand-made vocabularies (no shared files needed): the GPT-2 regex
// split, byte-level BPE from a custom tokenizer.json, SentencePiece-style BPE with byte fallback
// and BOS, a synthetic llama2.c tokenizer.bin, Unicode normalization, and very long inputs.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "core/common/error.h"
#include "core/tokenize/bpe_tokenizer.h"
#include "core/tokenize/llama2c_tokenizer.h"
#include "core/tokenize/load_tokenizer.h"
#include "core/tokenize/text_normalize.h"
#include "core/tokenize/token_text.h"
#include "core/tokenize/unicode_text.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  for (auto [from, to] : splitGpt2(text)) out.push_back(text.substr(from, to - from));
  return out;
}

std::vector<int> idsOf(const Tokenizer& t, const std::string& text) {
  std::vector<int> ids;
  for (const Token& token : t.encode(text)) ids.push_back(token.id);
  return ids;
}

std::string writeTemp(const std::string& name, const std::string& content) {
  std::string path = test::tempPath(name);
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

using V = std::vector<std::string>;

TEST(TokenizerUnit, Gpt2RegexSplit) {
  EXPECT_EQ(split("Hello world"), (V{"Hello", " world"}));
  EXPECT_EQ(split("  a"), (V{" ", " a"}));
  EXPECT_EQ(split("a\n\nb"), (V{"a", "\n", "\n", "b"}));
  EXPECT_EQ(split("x  "), (V{"x", "  "}));
  EXPECT_EQ(split("don't"), (V{"don", "'t"}));
  EXPECT_EQ(split("DON'T"), (V{"DON", "'", "T"}));
  EXPECT_EQ(split("we'll 1,000!!"), (V{"we", "'ll", " 1", ",", "000", "!!"}));
  EXPECT_EQ(split(" ?!x"), (V{" ?!", "x"}));
  EXPECT_EQ(split("caf\xC3\xA9 \xE4\xBD\xA0"), (V{"caf\xC3\xA9", " \xE4\xBD\xA0"}));
  EXPECT_TRUE(split("").empty());
}

TEST(TokenizerUnit, Llama3RegexSplit) {
  auto llama3 = [](const std::string& text, int digits) {
    std::vector<std::string> out;
    for (auto [from, to] : splitLlama3(text, digits)) out.push_back(text.substr(from, to - from));
    return out;
  };
  EXPECT_EQ(llama3("1234567", 3), (V{"123", "456", "7"}));
  EXPECT_EQ(llama3("12", 1), (V{"1", "2"}));
  EXPECT_EQ(llama3("I'LL \"go\"", 3), (V{"I", "'LL", " \"", "go", "\""}));
  EXPECT_EQ(llama3("a  \n  b", 3), (V{"a", "  \n", " ", " b"}));
  EXPECT_EQ(llama3("x!!\n\ny", 3), (V{"x", "!!\n\n", "y"}));
  EXPECT_EQ(recognizeSplitPattern("\\s+"), -1);
}

// A GPT-2-style tokenizer.json with a custom vocabulary: the 256 byte symbols, then merges.
std::string smallByteLevelJson(bool withType) {
  std::string vocab;
  for (int b = 0; b < 256; ++b) {
    std::string symbol =
        unicode::encodeUtf8(tokenize::byteToUnicode(static_cast<unsigned char>(b)));
    if (symbol == "\"" || symbol == "\\") symbol = "\\" + symbol;
    vocab += "\"" + symbol + "\": " + std::to_string(b) + ", ";
  }
  vocab += "\"\xC4\xA0t\": 256, \"he\": 257, \"\xC4\xA0the\": 258, \"<|endoftext|>\": 259";
  return std::string(R"({"version": "1.0", "added_tokens": [{"id": 259, "content": "<|endoftext|>",
    "special": true}], "normalizer": null,
    "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true},
    "post_processor": {"type": "ByteLevel"}, "decoder": {"type": "ByteLevel"},
    "model": {)") +
         (withType ? "\"type\": \"BPE\", " : "") + "\"vocab\": {" + vocab +
         "}, \"merges\": [\"\xC4\xA0 t\", \"h e\", \"\xC4\xA0t he\"]}}";
}

TEST(TokenizerUnit, SmallByteLevelTokenizerJson) {
  for (bool withType : {false, true}) {
    auto t = loadTokenizerFile(writeTemp("tokenizer.json", smallByteLevelJson(withType)));
    EXPECT_EQ(t->kind(), "bpe");
    EXPECT_EQ(t->vocabSize(), 260);
    // " the" -> Ġthe; "he" merges; "x" and "!" stay bytes; <|endoftext|> is one token.
    EXPECT_EQ(idsOf(*t, "he the!<|endoftext|>"), (std::vector<int>{257, 258, '!', 259}));
    auto tokens = t->encode(" the\n");
    ASSERT_EQ(tokens.size(), 2u);
    EXPECT_EQ(tokens[0].display, " the");
    EXPECT_EQ(tokens[1].display, "\u21B5");
    EXPECT_TRUE(t->fromIds({259})[0].special);
    EXPECT_THROW(t->fromIds({260}), Error);
  }
}

// Llama-style: "▁" for spaces, byte fallback, BOS from the post-processor.
std::string smallSentencePieceJson(bool metaspace) {
  std::string vocab = R"("<unk>": 0, "<s>": 1, "</s>": 2, )";
  for (int b = 0; b < 256; ++b) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "\"<0x%02X>\": %d, ", b, b + 3);
    vocab += buf;
  }
  vocab +=
      "\"\xE2\x96\x81\": 259, \"h\": 260, \"i\": 261, \"\xE2\x96\x81h\": 262, \"hi\": 263, "
      "\"\xE2\x96\x81hi\": 264";
  std::string normalizer =
      metaspace ? "null"
                : R"({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                     {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]})";
  std::string pre = metaspace ? R"({"type": "Metaspace", "replacement": "▁",
                                   "prepend_scheme": "first", "split": false})"
                              : "null";
  return R"({"added_tokens": [{"id": 0, "content": "<unk>", "special": true},
    {"id": 1, "content": "<s>", "special": true}, {"id": 2, "content": "</s>", "special": true}],
    "normalizer": )" +
         normalizer + ", \"pre_tokenizer\": " + pre + R"(,
    "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>",
      "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}], "special_tokens": {"<s>":
      {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
    "model": {"unk_token": "<unk>", "fuse_unk": true, "byte_fallback": true, "vocab": {)" +
         vocab + R"(}, "merges": ["▁ h", "h i", "▁h i"]}})";
}

TEST(TokenizerUnit, SmallSentencePieceTokenizerJson) {
  for (bool metaspace : {false, true}) {
    auto t = loadTokenizerFile(writeTemp("tokenizer.json", smallSentencePieceJson(metaspace)));
    EXPECT_EQ(t->kind(), "sentencepiece-bpe");
    EXPECT_EQ(idsOf(*t, "hi"), (std::vector<int>{1, 264}));
    // The emoji has no piece: its four UTF-8 bytes fall back to <0xF0> <0x9F> <0x98> <0x80>.
    EXPECT_EQ(idsOf(*t, "hi \xF0\x9F\x98\x80"),
              (std::vector<int>{1, 264, 259, 3 + 0xF0, 3 + 0x9F, 3 + 0x98, 3 + 0x80}));
    EXPECT_EQ(idsOf(*t, ""), (std::vector<int>{1}));
    auto tokens = t->encode("hi\nh");
    ASSERT_EQ(tokens.size(), 4u);
    EXPECT_TRUE(tokens[0].special);
    EXPECT_EQ(tokens[1].display, " hi");
    EXPECT_EQ(tokens[2].piece, "<0x0A>");
    EXPECT_EQ(tokens[2].display, "\u21B5");
    EXPECT_EQ(tokens[3].display, "h");
  }
}

// llama2.c tokenizer.bin: <unk> <s> </s>, 256 byte tokens, then pieces with scores.
std::string llama2cFile(const std::vector<std::pair<std::string, float>>& extra,
                        int32_t maxLen = 8) {
  std::string data(reinterpret_cast<const char*>(&maxLen), 4);
  auto record = [&](const std::string& piece, float score) {
    int32_t len = static_cast<int32_t>(piece.size());
    data.append(reinterpret_cast<const char*>(&score), 4);
    data.append(reinterpret_cast<const char*>(&len), 4);
    data += piece;
  };
  record("<unk>", 0);
  record("<s>", 0);
  record("</s>", 0);
  for (int b = 0; b < 256; ++b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "<0x%02X>", b);
    record(buf, 0);
  }
  for (const auto& [piece, score] : extra) record(piece, score);
  return data;
}

TEST(TokenizerUnit, SyntheticLlama2cMergesByScore) {
  // 259 " ", 260 "a", 261 "b", 262 "ab" (score 2), 263 " a" (score 1), 264 " ab" (score 3)
  std::string data =
      llama2cFile({{" ", -1}, {"a", -1}, {"b", -1}, {"ab", 2}, {" a", 1}, {" ab", 3}});
  Llama2cTokenizer t(data, "synthetic.bin", 0);
  EXPECT_EQ(t.vocabSize(), 265);
  // " a b": pairs " a"(1) and "ab"(2): "ab" first, then " ab"(3).
  EXPECT_EQ(t.encodeIds("ab"), (std::vector<int>{1, 264}));
  EXPECT_EQ(t.encodeIds("ba"), (std::vector<int>{1, 259, 261, 260}));
  EXPECT_EQ(t.encodeIds("a\n"), (std::vector<int>{1, 263, 3 + '\n'}));
  EXPECT_EQ(t.encodeIds(""), (std::vector<int>{1}));
  Llama2cTokenizer sized(data, "synthetic.bin", 262);
  EXPECT_EQ(sized.vocabSize(), 262);
  EXPECT_EQ(Llama2cTokenizer::countRecords(data, "synthetic.bin"), 265);
}

TEST(TokenizerUnit, BertNormalization) {
  using tokenize::toCodePoints;
  using tokenize::toUtf8;
  EXPECT_EQ(toUtf8(tokenize::stripAccents(toCodePoints("Ångström naïve Łódź"))),
            "Angstrom naive \xC5\x81odz");  // Ł has no decomposition
  EXPECT_EQ(toUtf8(tokenize::lowercase(toCodePoints("ÉCOLE ΑΘΗΝΑ МОСКВА Łódź"))),
            "école αθηνα москва łódź");
  // Hangul syllables decompose into jamo: 한 = U+1112 U+1161 U+11AB.
  EXPECT_EQ(tokenize::nfd(toCodePoints("\xED\x95\x9C")), (std::u32string{0x1112, 0x1161, 0x11AB}));
  tokenize::BertNormalizerOptions o;
  EXPECT_EQ(toUtf8(tokenize::bertNormalize(toCodePoints("A\tB\x01\xE4\xBD\xA0"), o)),
            "a b \xE4\xBD\xA0 ");
}

TEST(TokenizerUnit, Utf8DecodingIsLenient) {
  auto cps = unicode::decodeUtf8("a\xFF\xC3\xA9\xE2\x82");
  ASSERT_EQ(cps.size(), 5u);
  EXPECT_EQ(cps[1].cp, 0xFFFDu);
  EXPECT_EQ(cps[2].cp, 0xE9u);
  EXPECT_EQ(cps[3].length, 1u);
  EXPECT_FALSE(unicode::isValidUtf8("\xC0\xAF"));  // overlong
  EXPECT_TRUE(unicode::isValidUtf8("\xEF\xBF\xBD"));
}

TEST(TokenizerUnit, InvalidUtf8AndControlBytesTokenize) {
  auto t = loadTokenizerFile(writeTemp("tokenizer.json", smallByteLevelJson(false)));
  auto tokens = t->encode("\xFF\x01 the");
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].id, 0xFF);
  EXPECT_EQ(tokens[0].display, "<0xFF>");
  EXPECT_EQ(tokens[1].display, "<0x01>");
}

TEST(TokenizerUnit, HundredThousandCharactersTokenize) {
  std::string longWord(100000, 'a');
  std::string prose;
  while (prose.size() < 100000) prose += "the quick brown fox, don't stop \xC3\xA9t\xC3\xA9 ";
  auto small = loadTokenizerFile(writeTemp("tokenizer.json", smallByteLevelJson(false)));
  EXPECT_EQ(small->encode(longWord).size(), 100000u);
  EXPECT_GT(small->encode(prose).size(), 10000u);
  Llama2cTokenizer llama(llama2cFile({{" ", -1}, {"a", -1}, {"aa", 1}, {"aaaa", 2}}), "s.bin", 0);
  EXPECT_EQ(llama.encodeIds(longWord).size(), 1u + 1u + 25000u);
  std::string gpt2 = test::sharedModel("gpt2-tokenizer/tokenizer.json");
  std::string bert = test::sharedModel("bert-base-uncased-tokenizer/tokenizer.json");
  if (!gpt2.empty()) {
    EXPECT_GT(loadTokenizerFile(gpt2)->encode(longWord).size(), 1000u);
    EXPECT_GT(loadTokenizerFile(gpt2)->encode(prose).size(), 10000u);
  }
  if (!bert.empty()) {
    auto b = loadTokenizerFile(bert);
    EXPECT_EQ(b->encode(longWord).size(), 3u);  // [CLS] [UNK] [SEP]: beyond 100 characters
    EXPECT_GT(b->encode(prose).size(), 10000u);
  }
}

}  // namespace
}  // namespace headmap
