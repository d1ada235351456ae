#pragma once
// Normalizers of Hugging Face tokenizer.json files: BERT's (clean text, CJK split, strip
// accents, lowercase) and the simple steps of a "Sequence" normalizer (Prepend, Replace,
// Lowercase, NFD, StripAccents).
//
// Coverage: categories, lowercase and NFD come from full Unicode 14 tables
// (make_unicode_tables.py), Hangul included; compositions (NFC/NFKC) are NOT implemented, so
// those normalizers are accepted as identity (exact for text that is already NFC, the usual case).
#include <string>
#include <vector>

namespace headmap::tokenize {

struct BertNormalizerOptions {
  bool cleanText = true;
  bool handleChineseChars = true;
  bool stripAccents = true;
  bool lowercase = true;
};

std::u32string toCodePoints(const std::string& utf8);  // invalid bytes become U+FFFD
std::string toUtf8(const std::u32string& text);

std::u32string bertNormalize(const std::u32string& text, const BertNormalizerOptions& options);
std::u32string stripAccents(const std::u32string& text);  // NFD, then drop non-spacing marks
std::u32string lowercase(const std::u32string& text);
std::u32string nfd(const std::u32string& text);

struct NormalizerStep {
  enum class Kind { Prepend, Replace, Lowercase, Nfd, StripAccents, Identity };
  Kind kind = Kind::Identity;
  std::string a;  // Prepend: the prefix; Replace: the pattern
  std::string b;  // Replace: the replacement
};

std::string applyNormalizer(const std::string& text, const std::vector<NormalizerStep>& steps);

}  // namespace headmap::tokenize
