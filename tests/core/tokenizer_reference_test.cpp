// Token ids of the real GPT-2, BERT-uncased and llama2.c tokenizers against the ids the original
// tokenizers give (fixtures from scripts/fixtures/make_tokenizer_fixtures.mjs, which runs
// Hugging Face's tokenizers.js on the same files) and the documented known answers.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/tokenize/load_tokenizer.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

struct Case {
  std::string text;
  std::vector<int> ids;
};

std::vector<Case> loadCases(const std::string& name) {
  std::ifstream in(test::fixture("tokenizers/" + name));
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<Case> cases;
  for (const auto& c : nlohmann::json::parse(ss.str())) {
    cases.push_back({c["text"].get<std::string>(), c["ids"].get<std::vector<int>>()});
  }
  return cases;
}

std::vector<int> idsOf(const Tokenizer& t, const std::string& text) {
  std::vector<int> ids;
  for (const Token& token : t.encode(text)) ids.push_back(token.id);
  return ids;
}

std::string show(const std::vector<int>& ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", " : "") + std::to_string(ids[i]);
  return s + "]";
}

void expectAllCases(const Tokenizer& t, const std::string& fixture) {
  auto cases = loadCases(fixture);
  ASSERT_GT(cases.size(), 20u);
  for (const Case& c : cases) {
    std::vector<int> got = idsOf(t, c.text);
    EXPECT_EQ(got, c.ids) << "text: \"" << c.text << "\"\n  expected " << show(c.ids)
                          << "\n  got      " << show(got);
  }
}

TEST(TokenizerReference, Gpt2TokenizerJsonMatchesOriginal) {
  std::string path = test::sharedModel("gpt2-tokenizer/tokenizer.json");
  HEADMAP_SKIP_WITHOUT(path);
  auto t = loadTokenizerFile(path);
  EXPECT_EQ(t->kind(), "bpe");
  EXPECT_EQ(t->vocabSize(), 50257);
  EXPECT_EQ(idsOf(*t, "Hello world"), (std::vector<int>{15496, 995}));
  expectAllCases(*t, "gpt2.json");
}

TEST(TokenizerReference, Gpt2VocabJsonAndMergesMatchOriginal) {
  std::string path = test::sharedModel("gpt2-tokenizer/vocab.json");
  HEADMAP_SKIP_WITHOUT(path);
  auto t = loadTokenizerFile(path);
  EXPECT_EQ(t->vocabSize(), 50257);
  expectAllCases(*t, "gpt2.json");
}

TEST(TokenizerReference, BertTokenizerJsonMatchesOriginal) {
  std::string path = test::sharedModel("bert-base-uncased-tokenizer/tokenizer.json");
  HEADMAP_SKIP_WITHOUT(path);
  auto t = loadTokenizerFile(path);
  EXPECT_EQ(t->kind(), "wordpiece");
  EXPECT_EQ(t->vocabSize(), 30522);
  EXPECT_EQ(idsOf(*t, "hello world"), (std::vector<int>{101, 7592, 2088, 102}));
  expectAllCases(*t, "bert_uncased.json");
}

TEST(TokenizerReference, BertVocabTxtMatchesOriginal) {
  std::string path = test::sharedModel("bert-base-uncased-tokenizer/vocab.txt");
  HEADMAP_SKIP_WITHOUT(path);
  auto t = loadTokenizerFile(path);
  EXPECT_EQ(t->vocabSize(), 30522);
  expectAllCases(*t, "bert_uncased.json");
}

// GPT-2's vocabulary behind the Split pre-tokenizers of Llama 3 and Qwen2 (the regexes those
// byte-level tokenizer.json files use), against tokenizers.js on the same JSON.
TEST(TokenizerReference, Llama3AndQwen2SplitPatternsMatchOriginal) {
  std::string path = test::sharedModel("gpt2-tokenizer/tokenizer.json");
  HEADMAP_SKIP_WITHOUT(path);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json base = nlohmann::json::parse(ss.str());
  std::ifstream fin(test::fixture("tokenizers/gpt2_llama3_split.json"));
  nlohmann::json fixture = nlohmann::json::parse(fin);
  for (const char* variant : {"llama3", "qwen2"}) {
    SCOPED_TRACE(variant);
    nlohmann::json json = base;
    json["pre_tokenizer"] = fixture[variant]["pre_tokenizer"];
    std::string file = test::tempPath(std::string(variant) + "-tokenizer.json");
    std::ofstream(file) << json.dump();
    auto t = loadTokenizerFile(file);
    size_t checked = 0;
    for (const auto& c : fixture[variant]["cases"]) {
      std::string text = c["text"].get<std::string>();
      std::vector<int> expected = c["ids"].get<std::vector<int>>(), got = idsOf(*t, text);
      EXPECT_EQ(got, expected) << "text: \"" << text << "\"\n  expected " << show(expected)
                               << "\n  got      " << show(got);
      ++checked;
    }
    EXPECT_GT(checked, 30u);
  }
}

TEST(TokenizerReference, Llama2cOnceUponATime) {
  std::string path = test::sharedModel("stories260K/tok512.bin");
  HEADMAP_SKIP_WITHOUT(path);
  for (int hint : {0, 512}) {
    auto t = loadTokenizerFile(path, hint);
    EXPECT_EQ(t->kind(), "llama2c");
    EXPECT_EQ(t->vocabSize(), 512);
    EXPECT_EQ(idsOf(*t, "Once upon a time"), (std::vector<int>{1, 403, 407, 261, 378}));
    EXPECT_EQ(idsOf(*t, ""), (std::vector<int>{1}));
  }
}

TEST(TokenizerReference, Llama2cSpecialTokensDisplayWithoutNewlines) {
  std::string path = test::sharedModel("stories260K/tok512.bin");
  HEADMAP_SKIP_WITHOUT(path);
  auto t = loadTokenizerFile(path);
  const std::vector<Token> tokens = t->fromIds({1, 2});
  EXPECT_EQ(tokens[0].piece, "\n<s>\n");  // as llama2.c stores it
  EXPECT_EQ(tokens[0].display, "<s>");
  EXPECT_EQ(tokens[1].display, "</s>");
}

TEST(TokenizerReference, Llama2cDocumentedStoryRoundTrips) {
  std::string path = test::sharedModel("stories260K/tok512.bin");
  HEADMAP_SKIP_WITHOUT(path);
  auto t = loadTokenizerFile(path);
  // The README's greedy decoding starts with these ids; their pieces spell the story.
  std::vector<int> ids{1,   403, 407, 261, 378, 432, 383, 286, 261, 376,
                       298, 315, 421, 395, 317, 426, 338, 401, 396, 267};
  std::string text;
  for (const Token& token : t->fromIds(ids)) {
    if (!token.special) text += token.piece;
  }
  EXPECT_EQ(text, " Once upon a time, there was a little girl named Lily. She loved to");
  EXPECT_EQ(idsOf(*t, text.substr(1)), ids);
}

TEST(TokenizerReference, FolderPrefersTokenizerJson) {
  std::string dir = test::sharedModel("gpt2-tokenizer");
  HEADMAP_SKIP_WITHOUT(dir);
  auto t = loadTokenizerFromFolder(dir);
  ASSERT_TRUE(t);
  EXPECT_EQ(idsOf(*t, "Hello world"), (std::vector<int>{15496, 995}));
  auto bert = loadTokenizerFromFolder(test::sharedModel("bert-base-uncased-tokenizer"));
  ASSERT_TRUE(bert);
  EXPECT_EQ(bert->kind(), "wordpiece");
  EXPECT_EQ(loadTokenizerFromFolder(test::fixture("tokenizers")), nullptr);
}

TEST(TokenizerReference, DisplayTextIsReadable) {
  std::string gpt2 = test::sharedModel("gpt2-tokenizer/tokenizer.json");
  HEADMAP_SKIP_WITHOUT(gpt2);
  auto g = loadTokenizerFile(gpt2);
  auto tokens = g->encode("Hello world\n");
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[1].piece, "\u0120world");
  EXPECT_EQ(tokens[1].display, " world");
  EXPECT_EQ(tokens[2].display, "\u21B5");
  EXPECT_TRUE(g->fromIds({50256})[0].special);

  auto b = loadTokenizerFile(test::sharedModel("bert-base-uncased-tokenizer/tokenizer.json"));
  auto bt = b->encode("tokenizing");
  ASSERT_GE(bt.size(), 4u);
  EXPECT_TRUE(bt.front().special);
  EXPECT_EQ(bt.front().display, "[CLS]");
  EXPECT_EQ(bt[2].display.substr(0, 2), "##");

  auto l = loadTokenizerFile(test::sharedModel("stories260K/tok512.bin"));
  auto lt = l->fromIds({1, 403, 13, 3 + 'A'});
  EXPECT_TRUE(lt[0].special);
  EXPECT_EQ(lt[1].display, " Once");
  EXPECT_EQ(lt[2].piece, "<0x0A>");
  EXPECT_EQ(lt[2].display, "\u21B5");
  EXPECT_EQ(lt[3].display, "A");
}

TEST(TokenizerReference, FromIdsOutOfRangeThrows) {
  std::string path = test::sharedModel("stories260K/tok512.bin");
  HEADMAP_SKIP_WITHOUT(path);
  auto t = loadTokenizerFile(path);
  try {
    t->fromIds({1, 512});
    FAIL() << "no error for id 512";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("512"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0..511"), std::string::npos) << e.what();
  }
  EXPECT_THROW(t->fromIds({-1}), std::exception);
}

}  // namespace
}  // namespace headmap
