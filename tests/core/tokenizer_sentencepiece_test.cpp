// SentencePiece-style BPE (Llama): a tokenizer.json converted from stories260K/tok512.bin the way
// Hugging Face's converter does it, in both Llama layouts (Prepend/Replace normalizer, and the
// newer Metaspace pre-tokenizer). Reference ids from tokenizers.js on the same JSON
// (scripts/fixtures/make_tokenizer_fixtures.mjs); the fixture's merge list proves the test built
// the same file (by count and FNV-1a 64: the merges themselves stay in ../shared).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/attention/embedding.h"  // fnv1a64
#include "core/tokenize/load_tokenizer.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

using nlohmann::json;

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string replaceSpaces(const std::string& s) {
  std::string out;
  for (char c : s) out += c == ' ' ? std::string("\u2581") : std::string(1, c);
  return out;
}

// Code points of a UTF-8 string, each as its own UTF-8 substring.
std::vector<std::string> chars(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    unsigned char b = s[i];
    size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : 4;
    out.push_back(s.substr(i, len));
    i += len;
  }
  return out;
}

json convertTok512(const std::string& path, bool metaspace) {
  std::string data = readAll(path);
  std::vector<std::string> pieces;
  std::vector<float> scores;
  for (size_t pos = 4; pos + 8 <= data.size();) {
    float score;
    int32_t len;
    std::memcpy(&score, data.data() + pos, 4);
    std::memcpy(&len, data.data() + pos + 4, 4);
    pieces.push_back(replaceSpaces(data.substr(pos + 8, len)));
    scores.push_back(score);
    pos += 8 + len;
  }
  json vocab = json::object();
  std::map<std::string, int> ids;
  for (size_t i = 0; i < pieces.size(); ++i) {
    vocab[pieces[i]] = i;
    ids[pieces[i]] = static_cast<int>(i);
  }
  struct Merge {
    std::string l, r;
    float score;
  };
  std::vector<Merge> merges;
  for (size_t id = 259; id < pieces.size(); ++id) {
    std::vector<std::string> cs = chars(pieces[id]);
    std::vector<Merge> local;
    for (size_t k = 1; k < cs.size(); ++k) {
      std::string l, r;
      for (size_t j = 0; j < cs.size(); ++j) (j < k ? l : r) += cs[j];
      if (ids.count(l) && ids.count(r)) local.push_back({l, r, scores[id]});
    }
    std::stable_sort(local.begin(), local.end(), [&](const Merge& a, const Merge& b) {
      return ids[a.l] != ids[b.l] ? ids[a.l] < ids[b.l] : ids[a.r] < ids[b.r];
    });
    merges.insert(merges.end(), local.begin(), local.end());
  }
  std::stable_sort(merges.begin(), merges.end(),
                   [](const Merge& a, const Merge& b) { return a.score > b.score; });
  json mergeList = json::array();
  for (const Merge& m : merges) mergeList.push_back(m.l + " " + m.r);
  json added = json::array();
  for (auto [id, content] : {std::pair<int, const char*>{0, "<unk>"}, {1, "<s>"}, {2, "</s>"}}) {
    added.push_back({{"id", id}, {"content", content}, {"special", true}, {"normalized", false}});
  }
  json root = {
      {"version", "1.0"},
      {"added_tokens", added},
      {"normalizer", nullptr},
      {"pre_tokenizer", nullptr},
      {"post_processor",
       {{"type", "TemplateProcessing"},
        {"single", json::array({{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
                                {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}})},
        {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}}},
      {"model",
       {{"type", "BPE"},
        {"unk_token", "<unk>"},
        {"continuing_subword_prefix", nullptr},
        {"fuse_unk", true},
        {"byte_fallback", true},
        {"vocab", vocab},
        {"merges", mergeList}}}};
  if (metaspace) {
    root["pre_tokenizer"] = {{"type", "Metaspace"},
                             {"replacement", "\u2581"},
                             {"prepend_scheme", "first"},
                             {"split", false}};
  } else {
    root["normalizer"] = {
        {"type", "Sequence"},
        {"normalizers",
         json::array(
             {{{"type", "Prepend"}, {"prepend", "\u2581"}},
              {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}}})}};
  }
  return root;
}

TEST(TokenizerSentencePiece, ConvertedTok512MatchesReference) {
  std::string tok = test::sharedModel("stories260K/tok512.bin");
  HEADMAP_SKIP_WITHOUT(tok);
  json fixture = json::parse(readAll(test::fixture("tokenizers/sentencepiece_llama.json")));
  for (const std::string variant : {"legacy", "metaspace"}) {
    SCOPED_TRACE(variant);
    json converted = convertTok512(tok, variant == "metaspace");
    std::string joined;
    for (const auto& merge : converted["model"]["merges"]) {
      if (!joined.empty()) joined += "\n";
      joined += merge.get<std::string>();
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a64(joined)));
    ASSERT_EQ(converted["model"]["merges"].size(), fixture["merges_count"].get<size_t>());
    ASSERT_EQ(std::string(hex), fixture["merges_fnv1a64"].get<std::string>())
        << "conversion differs from the fixture script's";
    std::string path = test::tempPath(variant + "-tokenizer.json");
    std::ofstream(path) << converted.dump();
    auto t = loadTokenizerFile(path);
    EXPECT_EQ(t->kind(), "sentencepiece-bpe");
    EXPECT_EQ(t->vocabSize(), 512);
    size_t checked = 0;
    for (const json& c : fixture["variants"][variant]) {
      std::string text = c["text"].get<std::string>();
      std::vector<int> expected = c["ids"].get<std::vector<int>>(), got;
      for (const Token& token : t->encode(text)) got.push_back(token.id);
      EXPECT_EQ(got, expected) << "text: \"" << text << "\"";
      ++checked;
    }
    EXPECT_GT(checked, 30u);
  }
}

}  // namespace
}  // namespace headmap
